package pipelinestore

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// listeningDriver is River's database/sql driver given a listener built on
// pgdriver's, so that River's client runs as on its pgx driver: its
// producers LISTEN for the notification that River's insert sends in the
// write's transaction, and fetch the job as soon as the write commits
// instead of at their next poll. From commit to the first attempt over
// 100 writes on PostgreSQL, webhook p50 466 ms and p99 1.08 s when polling
// every second, 9.9 ms and 100 ms listening (the p99 is River's 100 ms
// cooldown after a fetch); the mail's hand-off to SMTP 8.3 ms and 102 ms
// (measured on a shared 2-core machine; reproduce with
// PIPELINE_TEST_POSTGRES=… go test ./pipeline/ -run '^$' -bench
// Delivery_CommitToAttempt -benchtime 1x). It needs a server connection
// of its own for as long as the queue runs, which a transaction pooler
// cannot lend: behind one the queue polls (DeliveryConfig.PollOnly).
// River's insert-only client needs nothing: it sends the notification
// with any driver.
type listeningDriver struct {
	*riverdatabasesql.Driver
	db     *bun.DB
	schema string // the store's current schema, which River's notifications are named in
}

// SupportsListener is true wherever the server delivers notifications.
func (d listeningDriver) SupportsListener() bool { return d.Driver.SupportsListenNotify() }

// GetListener returns a listener on a connection of its own.
func (d listeningDriver) GetListener(p *riverdriver.GetListenenerParams) riverdriver.Listener {
	return &listener{db: d.db, schema: cmp.Or(p.Schema, d.schema)}
}

// listener is River's riverdriver.Listener on pgdriver's Listener, read
// through its channel: pgdriver reads the connection in a goroutine of its
// own, pings it when it has been quiet for 5 s and connects again (with
// its LISTENs) when it went bad, so that a wait here can end when River
// cancels it, which a read on the connection would not. A notification
// lost while it reconnects is made up for by River's poll.
type listener struct {
	db     *bun.DB
	schema string

	mu sync.Mutex
	ln *pgdriver.Listener
	ch <-chan pgdriver.Notification
}

var errNotListening = errors.New("pipelinestore: the queue's listener is not connected")

// channel is River's topic as it notifies it: qualified by the schema.
func (l *listener) channel(topic string) string { return l.schema + "." + topic }

func (l *listener) Connect(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln != nil {
		return errors.New("pipelinestore: the queue's listener is already connected")
	}
	ln := pgdriver.NewListener(l.db)
	// Listening to nothing connects: a server that cannot be reached
	// fails here, where River retries, rather than in the first wait.
	if err := ln.Listen(ctx); err != nil {
		_ = ln.Close()
		return err
	}
	l.ln, l.ch = ln, ln.Channel()
	return nil
}

func (l *listener) Close(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln == nil {
		return nil
	}
	err := l.ln.Close()
	l.ln, l.ch = nil, nil
	return err
}

func (l *listener) Listen(ctx context.Context, topic string) error {
	ln, _, err := l.current()
	if err != nil {
		return err
	}
	return ln.Listen(ctx, l.channel(topic))
}

func (l *listener) Unlisten(ctx context.Context, topic string) error {
	ln, _, err := l.current()
	if err != nil {
		return err
	}
	return ln.Unlisten(ctx, l.channel(topic))
}

// Ping reports whether the listener is connected; pgdriver checks the
// connection itself (see listener).
func (l *listener) Ping(context.Context) error {
	_, _, err := l.current()
	return err
}

func (l *listener) Schema() string { return l.schema }

// SetAfterConnectExec is for River's own tests, which never run here.
func (l *listener) SetAfterConnectExec(string) {}

func (l *listener) WaitForNotification(ctx context.Context) (*riverdriver.Notification, error) {
	_, ch, err := l.current()
	if err != nil {
		return nil, err
	}
	select {
	case n, ok := <-ch:
		if !ok {
			return nil, errNotListening
		}
		return &riverdriver.Notification{Topic: strings.TrimPrefix(n.Channel, l.schema+"."), Payload: n.Payload}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *listener) current() (*pgdriver.Listener, <-chan pgdriver.Notification, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln == nil {
		return nil, nil, errNotListening
	}
	return l.ln, l.ch, nil
}
