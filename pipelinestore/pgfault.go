package pipelinestore

import (
	"context"
	"database/sql/driver"
	"net"
	"sync/atomic"

	"github.com/uptrace/bun/driver/pgdriver"
)

// A connection whose read or write failed is never used again: without
// it, TestDB_LateReply fails with prepared statements ("pgdriver:
// readParseDescribeSync: unexpected message '2'"), the next statement
// reading the reply of the one that timed out. pgdriver closes such a
// connection itself after a text statement, not after a prepared one.

// faultConn is a network connection to PostgreSQL that remembers a failed
// read or write. After one, the driver may have left a reply unread (a
// statement that timed out is still answered when the server comes back),
// and the next statement on the connection would read that reply as its
// own; the driver does not close such a connection itself on every path.
// See resetSession.
type faultConn struct {
	net.Conn
	failed atomic.Bool
}

func (c *faultConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		c.failed.Store(true)
	}
	return n, err
}

func (c *faultConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if err != nil {
		c.failed.Store(true)
	}
	return n, err
}

// withFaultConns makes the driver dial faultConns.
func withFaultConns(conf *pgdriver.Config) {
	dial := conf.Dialer
	conf.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &faultConn{Conn: c}, nil
	}
}

// resetSession runs before database/sql hands out a connection it has
// handed out before: one whose network connection failed is discarded
// (driver.ErrBadConn), and database/sql takes or opens another.
func resetSession(_ context.Context, cn *pgdriver.Conn) error {
	c := cn.Conn()
	if t, ok := c.(interface{ NetConn() net.Conn }); ok { // under TLS
		c = t.NetConn()
	}
	if f, ok := c.(*faultConn); ok && f.failed.Load() {
		_ = cn.Close()
		return driver.ErrBadConn
	}
	return nil
}
