package pipelinehttp

// IdempotencyKeyHeader names the key of a replayable write.
const IdempotencyKeyHeader = "Idempotency-Key"

// ReplayHeader marks a response that replays a stored result.
const ReplayHeader = "Idempotent-Replay"
