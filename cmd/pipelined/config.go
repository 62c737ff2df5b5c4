package main

import (
	"fmt"
	"strconv"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Defaults of the operator contract (decisions §8).
const (
	defaultDB   = "pipeline.db"
	defaultAddr = "127.0.0.1:8080"
)

// config is the configuration read from the environment. Command flags of
// the same meaning start from these values and override them.
type config struct {
	DB        string // PIPELINE_DB: a postgres:// URL or a SQLite path
	Addr      string // PIPELINE_ADDR: listen address
	BaseURL   string // PIPELINE_BASE_URL: scheme and host of pagination links
	RateLimit int    // PIPELINE_RATE_LIMIT: requests per minute per user
}

// loadConfig reads the PIPELINE_* variables through getenv. An empty
// variable takes its default; a malformed one is an error.
func loadConfig(getenv func(string) string) (config, error) {
	cfg := config{
		DB:        or(getenv("PIPELINE_DB"), defaultDB),
		Addr:      or(getenv("PIPELINE_ADDR"), defaultAddr),
		BaseURL:   getenv("PIPELINE_BASE_URL"),
		RateLimit: pipeline.DefaultRateLimit,
	}
	if raw := getenv("PIPELINE_RATE_LIMIT"); raw != "" {
		n, err := parseRateLimit(raw)
		if err != nil {
			return config{}, fmt.Errorf("PIPELINE_RATE_LIMIT: %w", err)
		}
		cfg.RateLimit = n
	}
	return cfg, nil
}

func parseRateLimit(raw string) (int, error) {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a whole number of requests per minute (1 or more)", raw)
	}
	return n, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
