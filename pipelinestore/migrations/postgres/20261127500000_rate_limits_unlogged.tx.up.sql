-- A request's count is a write of its own, committed before the request
-- does anything else. Logged, every such commit waits for its WAL to reach
-- the disk (and, with synchronous replication, the standby), which made the
-- limiter the costliest statement of a read. Unlogged, a transaction that
-- writes only this table commits without a WAL flush. What that gives up:
-- after a crash, or on a standby promoted in a failover, the table starts
-- empty, so each user's window opens anew with its whole budget.
ALTER TABLE rate_limits SET UNLOGGED;
