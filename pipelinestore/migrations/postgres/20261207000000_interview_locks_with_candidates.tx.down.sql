DROP FUNCTION pipeline_lock_candidates(bigint[]);
