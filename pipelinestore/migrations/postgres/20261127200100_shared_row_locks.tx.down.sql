ALTER TABLE candidates ADD CONSTRAINT candidates_stage_id_job_id_fkey FOREIGN KEY (stage_id, job_id) REFERENCES stages (id, job_id);
--bun:split
DROP TRIGGER candidates_stage_of_job ON candidates;
--bun:split
DROP FUNCTION pipeline_check_stage();
--bun:split
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_team_id_fkey FOREIGN KEY (team_id) REFERENCES teams (id) ON DELETE CASCADE;
--bun:split
ALTER TABLE activity ADD CONSTRAINT activity_team_id_fkey FOREIGN KEY (team_id) REFERENCES teams (id);
