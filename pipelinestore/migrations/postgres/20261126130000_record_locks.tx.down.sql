DROP FUNCTION pipeline_lock_record(text, bigint);
