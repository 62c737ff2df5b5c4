DROP INDEX activity_subject_idx;
