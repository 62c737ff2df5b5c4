-- The fold adds the committed deltas of the stages' candidate counts to
-- the stages (migration 20261127200000_stage_count_deltas) and returns
-- how many it folded.
-- name: FoldStageCounts
SELECT pipeline_fold_stage_counts();
