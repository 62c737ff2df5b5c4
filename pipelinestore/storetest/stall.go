package storetest

import (
	"context"
	"database/sql"
	"net"
	"net/url"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// Stall makes a database stop answering, as a database whose processes are
// stopped or whose network is cut does, to test deadlines against the real
// thing. Hang starts it, Resume ends it; the test's cleanup resumes.
//
// On PostgreSQL the store reaches the server through a TCP proxy that, while
// hung, forwards nothing: connections stay open and every statement waits.
// When the hang ends, what was sent during it is delivered, late, as a
// server whose processes were stopped (SIGSTOP) and continued answers it.
//
// On SQLite another connection holds the write lock of the file: writes
// wait for it, and reads go on (WAL lets readers run beside a writer).
type Stall struct {
	hang, resume, down func(tb testing.TB)
}

// Hang makes the database stop answering.
func (s *Stall) Hang(tb testing.TB) { tb.Helper(); s.hang(tb) }

// Resume makes it answer again, after Hang or Down.
func (s *Stall) Resume(tb testing.TB) { tb.Helper(); s.resume(tb) }

// Down takes a PostgreSQL server away, as stopping it does: its
// connections are closed and new ones refused until Resume. A SQLite file
// cannot go away so: the test is skipped.
func (s *Stall) Down(tb testing.TB) {
	tb.Helper()
	if s.down == nil {
		tb.Skip("storetest: a SQLite file does not go down")
	}
	s.down(tb)
}

// EachStallingDB runs fn as a subtest "sqlite" and a subtest "postgres", each
// on a fresh, migrated, empty database opened with opts, and a Stall of it.
func EachStallingDB(t *testing.T, fn func(t *testing.T, db *pipelinestore.DB, s *Stall), opts ...pipelinestore.Option) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "pipeline.db")
		db := open(t, path, opts...)
		fn(t, db, sqliteStall(t, path))
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := PostgresSchemaDSN(t)
		p := newProxy(t, dsn)
		db := open(t, p.dsn, opts...)
		fn(t, db, &Stall{
			hang:   func(testing.TB) { p.setHung(true) },
			resume: func(testing.TB) { p.setHung(false); p.setDown(false) },
			down:   func(testing.TB) { p.setDown(true) },
		})
	})
}

// open opens and migrates a database for the rest of the test.
func open(tb testing.TB, dsn string, opts ...pipelinestore.Option) *pipelinestore.DB {
	tb.Helper()
	ctx := context.Background()
	db, err := pipelinestore.Open(ctx, dsn, opts...)
	if err != nil {
		tb.Fatalf("storetest: open %s: %v", dsn, err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(ctx); err != nil {
		tb.Fatalf("storetest: migrate: %v", err)
	}
	return db
}

// sqliteStall holds the write lock of the SQLite file at path from a
// connection of its own.
func sqliteStall(tb testing.TB, path string) *Stall {
	var conn *sql.Conn
	var other *sql.DB
	release := func(tb testing.TB) {
		if conn == nil {
			return
		}
		_, err := conn.ExecContext(context.Background(), "ROLLBACK")
		_ = conn.Close()
		_ = other.Close()
		conn, other = nil, nil
		if err != nil {
			tb.Errorf("storetest: release the SQLite lock: %v", err)
		}
	}
	tb.Cleanup(func() { release(tb) })
	return &Stall{
		hang: func(tb testing.TB) {
			tb.Helper()
			ctx := context.Background()
			var err error
			if other, err = sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)"); err == nil {
				if conn, err = other.Conn(ctx); err == nil {
					_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
				}
			}
			if err != nil {
				tb.Fatalf("storetest: take the SQLite write lock: %v", err)
			}
		},
		resume: release,
	}
}

// proxy forwards TCP connections to a PostgreSQL server, and forwards
// nothing while hung.
type proxy struct {
	dsn    string // the DSN through the proxy
	target string

	mu    sync.Mutex
	hung  chan struct{} // closed when the hang ends; nil when not hung
	down  bool          // connections are refused
	conns map[net.Conn]bool
}

// newProxy starts a proxy to the server of dsn for the rest of the test.
func newProxy(tb testing.TB, dsn string) *proxy {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatalf("storetest: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("storetest: proxy: %v", err)
	}
	p := &proxy{target: u.Host, conns: map[net.Conn]bool{}}
	u.Host = ln.Addr().String()
	p.dsn = u.String()
	var wg sync.WaitGroup
	tb.Cleanup(func() {
		_ = ln.Close()
		p.setHung(false)
		p.mu.Lock()
		for c := range p.conns {
			_ = c.Close()
		}
		p.mu.Unlock()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			down := p.down
			p.mu.Unlock()
			if down {
				_ = c.Close()
				continue
			}
			wg.Go(func() { p.serve(c, &wg) })
		}
	})
	return p
}

func (p *proxy) setHung(hung bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case hung && p.hung == nil:
		p.hung = make(chan struct{})
	case !hung && p.hung != nil:
		close(p.hung)
		p.hung = nil
	}
}

// setDown closes every connection, and refuses new ones while down.
func (p *proxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			_ = c.Close()
		}
	}
}

// track records an open connection, or forgets it.
func (p *proxy) track(c net.Conn, open bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if open {
		p.conns[c] = true
	} else {
		delete(p.conns, c)
	}
}

// serve connects client to the server and copies both ways until either
// side fails.
func (p *proxy) serve(client net.Conn, wg *sync.WaitGroup) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	p.track(client, true)
	p.track(server, true)
	var once sync.Once
	done := make(chan struct{})
	stop := func() {
		once.Do(func() {
			close(done)
			_ = client.Close()
			_ = server.Close()
			p.track(client, false)
			p.track(server, false)
		})
	}
	wg.Go(func() { p.copy(server, client, done, stop) })
	p.copy(client, server, done, stop)
}

// copy forwards what src sends to dst. Bytes read while hung are held
// until the hang ends.
func (p *proxy) copy(dst, src net.Conn, done chan struct{}, stop func()) {
	defer stop()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			hung := p.hung
			p.mu.Unlock()
			if hung != nil {
				select {
				case <-hung:
				case <-done:
					return
				}
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
