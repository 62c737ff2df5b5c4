package pipelinestore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// StoredSecretKey returns the raw secret key kept in the database, for a
// server whose operator gives none (pipeline.SecretKey), or nil when there
// is none. With create, one is made first when there is none; every
// replica then reads the same. A key kept there guards webhook secrets
// less than one kept apart: a copy of the database holds both.
func (db *DB) StoredSecretKey(ctx context.Context, create bool) ([]byte, error) {
	if create {
		raw := make([]byte, pipeline.SecretKeyLength)
		if _, err := rand.Read(raw); err != nil {
			return nil, err
		}
		if _, err := db.write().exec(ctx, db.q.CreateSecretKey, raw, ts(time.Now())); err != nil {
			return nil, formatError(err, "Secret key")
		}
	}
	var key []byte
	err := db.write().get(ctx, db.q.SecretKey, nil, &key)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, formatError(err, "Secret key")
	}
	return key, nil
}
