DROP TABLE stage_count_deltas;
