package pipelinestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivertype"

	"github.com/pipeline-dev/pipeline/pipeline"
)

type deliveryRow struct {
	ID            int64      `bun:"id"`
	WebhookID     int64      `bun:"webhook_id"`
	ActivityID    int64      `bun:"activity_id"`
	Action        string     `bun:"action"`
	Attempt       int        `bun:"attempt"`
	StatusCode    *int       `bun:"status_code"`
	Error         string     `bun:"error"`
	DurationMS    int64      `bun:"duration_ms"`
	AttemptedAt   time.Time  `bun:"attempted_at"`
	NextAttemptAt *time.Time `bun:"next_attempt_at"`

	Total int `bun:"total,scanonly"`
}

func (r deliveryRow) windowTotal() int { return r.Total }

func (r deliveryRow) toDelivery() pipeline.Delivery {
	return pipeline.Delivery{
		ID: r.ID, WebhookID: r.WebhookID, ActivityID: r.ActivityID, Action: r.Action, Attempt: r.Attempt,
		StatusCode: r.StatusCode, Error: r.Error, Duration: time.Duration(r.DurationMS) * time.Millisecond,
		AttemptedAt: r.AttemptedAt.UTC(), NextAttemptAt: utcPtr(r.NextAttemptAt),
	}
}

// Deliveries returns a page of the attempts of a webhook of a team, newest
// first.
func (db webhookStore) Deliveries(ctx context.Context, p pipeline.DeliveriesParams) (pipeline.List[pipeline.Delivery], error) {
	webhookID, page := p.WebhookID, p.Page
	if _, err := db.Get(ctx, pipeline.WebhookParams{TeamID: p.TeamID, ID: webhookID}); err != nil {
		return pipeline.List[pipeline.Delivery]{}, err
	}
	var rows []deliveryRow
	if err := db.read().all(ctx, db.q.DeliveriesPage, args(webhookID, pipeline.Offset(page)), &rows); err != nil {
		return pipeline.List[pipeline.Delivery]{}, formatError(err, "Delivery")
	}
	list := pageOf(page, rows, deliveryRow.toDelivery)
	if len(rows) == 0 && page > 1 {
		if err := db.read().get(ctx, db.q.DeliveriesCount, args(webhookID), &list.Total); err != nil {
			return pipeline.List[pipeline.Delivery]{}, formatError(err, "Delivery")
		}
	}
	return list, nil
}

// DeliveryTarget returns the webhook of m with its creator's role, and m's
// entry as the creator may read it now.
func (db webhookStore) DeliveryTarget(ctx context.Context, m pipeline.WebhookMessage) (pipeline.DeliveryTarget, error) {
	var r struct {
		webhookRow
		CreatorRole *string `bun:"creator_role"`
	}
	if err := db.read().get(ctx, db.q.DeliveryWebhook, args(m.WebhookID), &r); err != nil {
		return pipeline.DeliveryTarget{}, formatError(err, "Webhook")
	}
	t := pipeline.DeliveryTarget{Webhook: r.toWebhook()}
	if r.CreatorRole != nil {
		t.CreatorRole = pipeline.Role(*r.CreatorRole)
	}
	entry, err := db.feedEntry(ctx, r.CreatedBy, m.ActivityID)
	t.Entry = entry
	return t, err
}

// RecordDelivery stores an attempt, with its entry's action.
func (db webhookStore) RecordDelivery(ctx context.Context, d pipeline.Delivery) error {
	_, err := db.write().exec(ctx, db.q.RecordDelivery, d.WebhookID, d.ActivityID, d.Attempt, d.StatusCode, d.Error,
		d.Duration.Milliseconds(), ts(d.AttemptedAt), tsPtr(d.NextAttemptAt))
	return formatError(err, "Delivery")
}

// PurgeDeliveries deletes delivery attempts made before a time.
func (db webhookStore) PurgeDeliveries(ctx context.Context, before time.Time) (int64, error) {
	res, err := db.write().exec(ctx, db.q.PurgeDeliveries, ts(before))
	if err != nil {
		return 0, formatError(err, "Delivery")
	}
	return res.RowsAffected()
}

// Deliverer makes the attempts of messages: pipeline.Dispatcher.
type Deliverer interface {
	// Deliver makes attempt number attempt (from 1) of m; an error asks
	// for another attempt.
	Deliver(ctx context.Context, m pipeline.WebhookMessage, attempt int) error
	// RetryAfter is how long to wait after failed attempt number attempt.
	RetryAfter(attempt int) (time.Duration, bool)
	// MaxAttempts is the number of attempts of a message, the first
	// included.
	MaxAttempts() int
	// Purge deletes what has expired (pipeline.Operator.Purge); the
	// queue runs it periodically.
	Purge(ctx context.Context) (pipeline.Purged, error)
}

// DeliveryConfig configures StartDeliveries.
type DeliveryConfig struct {
	// Workers is how many messages are delivered at once; 0: none are
	// delivered by this program, which still takes its turn at purging.
	Workers int
	// PurgeInterval is how often what has expired is purged; 0 is
	// pipeline.PurgeInterval.
	PurgeInterval time.Duration
	// PollInterval is how often the queue is read for messages that are
	// due. On PostgreSQL the queue listens for the notification of each
	// insert, and the poll only makes up for one lost: 0 is one second. On
	// SQLite, and with PollOnly, the poll is all there is: 0 is one second
	// on SQLite, whose one writer connection it would otherwise keep busy,
	// and PollOnlyInterval with PollOnly.
	PollInterval time.Duration
	// PollOnly makes the queue poll instead of listening on PostgreSQL:
	// set it when the database is reached through a transaction pooler
	// (PgBouncer's pool_mode = transaction), which lends no connection
	// for as long as a LISTEN must hold one.
	PollOnly bool
	// Logger receives the queue's warnings and errors, and what each
	// purge deleted; nil logs nothing.
	Logger *slog.Logger
	// Postman sends the queued messages to candidates, Workers at once;
	// nil: none are sent by this program.
	Postman Postman
	// Texts extracts the text of documents added, TextWorkers at once
	// (0 is 1); nil: none are extracted by this program.
	Texts       Texts
	TextWorkers int
	// Sweeper runs the retention pass (every RetentionInterval) and
	// closes proposals past their time (every
	// pipeline.ProposalSweepInterval), first at once, on the replica River
	// elects leader; nil: this program runs neither.
	Sweeper Sweeper
	// RetentionInterval is how often Sweeper runs; 0: RetentionInterval.
	RetentionInterval time.Duration
	// Clock is the time RemoveOrphans runs at, every OrphanInterval on
	// the leader, when the store has a BlobStore; nil: the system's.
	Clock pipeline.Clock
}

// PollOnlyInterval is how often a queue that polls on PostgreSQL
// (DeliveryConfig.PollOnly) reads it by default: a message waits half of
// it for its first attempt on average, and each replica reads each of its
// queues (messages, webhooks, the purge) five times a second, a short
// statement each, which a transaction pooler lends a connection for.
const PollOnlyInterval = 200 * time.Millisecond

// Deliveries is the running delivery of webhook messages.
type Deliveries struct {
	client *river.Client[*sql.Tx]
}

// deliveryJobTimeout bounds one attempt: the receiver's 10 s, and the
// reads and writes around it.
const deliveryJobTimeout = 30 * time.Second

// StartDeliveries starts delivering the queued messages with d until ctx
// is cancelled or Stop is called, and purging what has expired with d
// every cfg.PurgeInterval, first at once. d may make at most
// pipeline.MaxDeliveryAttempts attempts of a message. Every replica may
// run it: each attempt is made by one of them (River locks each message
// it works), and each purge, retention pass and, with a BlobStore, pass
// of RemoveOrphans is scheduled by the one River elects leader, so it
// runs once across replicas.
// On PostgreSQL the queue holds a connection of its own on which it
// listens for the notification River sends with each insert, so that a
// message is taken within milliseconds of its write's commit (see
// listeningDriver); with cfg.PollOnly, behind a transaction pooler, it
// polls every cfg.PollInterval instead. On SQLite the queue shares the one
// writer connection with the API's writes: its statements are short and
// queue with theirs, and it polls.
func (db *DB) StartDeliveries(ctx context.Context, d Deliverer, cfg DeliveryConfig) (*Deliveries, error) {
	if cfg.Workers < 0 {
		return nil, errors.New("pipelinestore: a negative number of delivery workers")
	}
	// A message is queued, in its write's transaction, for the contract's
	// number of attempts: a longer schedule would promise attempts that
	// never come.
	if n := d.MaxAttempts(); n > pipeline.MaxDeliveryAttempts {
		return nil, fmt.Errorf("pipelinestore: a delivery schedule of %d attempts exceeds the %d a message is queued for", n, pipeline.MaxDeliveryAttempts)
	}
	listen := db.dialect == DialectPostgres && !cfg.PollOnly
	poll := cfg.PollInterval
	if poll <= 0 {
		poll = time.Second
		if db.dialect == DialectPostgres && cfg.PollOnly {
			poll = PollOnlyInterval
		}
	}
	logger := cfg.Logger
	if logger == nil {
		logger = quiet
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &deliveryWorker{d: d})
	river.AddWorker(workers, &purgeWorker{d: d, log: logger})
	queues := map[string]river.QueueConfig{purgeQueue: {MaxWorkers: 1}}
	if cfg.Workers > 0 {
		queues[deliveryQueue] = river.QueueConfig{MaxWorkers: cfg.Workers}
	}
	if err := db.addPostman(workers, queues, cfg); err != nil {
		return nil, err
	}
	addTexts(workers, queues, cfg)
	periodic := []*river.PeriodicJob{purgeJob(cfg.PurgeInterval)}
	if cfg.Sweeper != nil {
		river.AddWorker(workers, &retentionWorker{s: cfg.Sweeper, log: logger})
		periodic = append(periodic, retentionJob(cfg.RetentionInterval))
		river.AddWorker(workers, &proposalsWorker{s: cfg.Sweeper})
		periodic = append(periodic, proposalsJob())
	}
	periodic = db.addOrphans(workers, periodic, cfg, logger)
	driver := db.riverDriver()
	if listen {
		driver = listeningDriver{Driver: riverdatabasesql.New(db.w.bun.DB), db: db.w.bun, schema: db.schema}
	}
	client, err := river.NewClient(driver, &river.Config{
		Logger:               logger,
		PollOnly:             !listen,
		FetchPollInterval:    poll,
		FetchCooldown:        min(poll, 100*time.Millisecond),
		Queues:               queues,
		Workers:              workers,
		PeriodicJobs:         periodic,
		RetryPolicy:          retryPolicy{d: d},
		JobTimeout:           deliveryJobTimeout,
		RescueStuckJobsAfter: 10 * deliveryJobTimeout,
		TestOnly:             poll < time.Second, // no jittered start of the maintenance services
	})
	if err != nil {
		return nil, fmt.Errorf("pipelinestore: River client: %w", err)
	}
	if err := client.Start(ctx); err != nil {
		return nil, fmt.Errorf("pipelinestore: start deliveries: %w", err)
	}
	return &Deliveries{client: client}, nil
}

// Stop stops taking messages and waits for the attempts in flight, until
// ctx ends; those cut off are attempted again later.
func (d *Deliveries) Stop(ctx context.Context) error {
	err := d.client.Stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return errors.Join(err, d.client.StopAndCancel(cctx))
	}
	return err
}

// deliveryWorker works River's jobs of messages.
type deliveryWorker struct {
	river.WorkerDefaults[deliveryArgs]
	d Deliverer
}

func (w *deliveryWorker) Work(ctx context.Context, job *river.Job[deliveryArgs]) error {
	return w.d.Deliver(ctx, job.Args.WebhookMessage, job.Attempt)
}

// retryPolicy is River's retry hook set to the Deliverer's schedule.
type retryPolicy struct{ d Deliverer }

func (p retryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	wait, ok := p.d.RetryAfter(job.Attempt)
	if !ok {
		wait = pipeline.RetrySchedule[len(pipeline.RetrySchedule)-1]
	}
	return time.Now().Add(wait)
}

// purgeQueue is the River queue of the periodic purge.
const purgeQueue = "maintenance"

// purgeJobTimeout bounds one purge, which may rightly take long on big
// tables; its statements are not cut short by the statement timeout.
const purgeJobTimeout = 10 * time.Minute

// purgeArgs is the periodic purge as a River job's arguments.
type purgeArgs struct{}

// Kind names the job kind.
func (purgeArgs) Kind() string { return "pipeline_purge" }

// InsertOpts puts purges on their queue; a purge that fails is not
// retried: the next one comes.
func (purgeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: purgeQueue, MaxAttempts: 1}
}

// purgeJob is the periodic purge, every interval (0: pipeline.PurgeInterval)
// and once when a client becomes River's leader.
func purgeJob(interval time.Duration) *river.PeriodicJob {
	if interval <= 0 {
		interval = pipeline.PurgeInterval
	}
	return river.NewPeriodicJob(river.PeriodicInterval(interval),
		func() (river.JobArgs, *river.InsertOpts) { return purgeArgs{}, nil },
		&river.PeriodicJobOpts{ID: "pipeline_purge", RunOnStart: true})
}

// purgeWorker works River's purge jobs.
type purgeWorker struct {
	river.WorkerDefaults[purgeArgs]
	d   Deliverer
	log *slog.Logger
}

func (w *purgeWorker) Work(ctx context.Context, _ *river.Job[purgeArgs]) error {
	p, err := w.d.Purge(ctx)
	for what, n := range map[string]int64{"idempotency records": p.IdempotencyRecords, "delivery attempts": p.DeliveryAttempts} {
		if n > 0 {
			w.log.Info("purged "+what, "count", n)
		}
	}
	return err
}

func (w *purgeWorker) Timeout(*river.Job[purgeArgs]) time.Duration { return purgeJobTimeout }
