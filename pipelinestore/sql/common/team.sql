-- name: UserWithTeam
SELECT u.id, u.name, u.email, u.current_team_id, t.name AS team_name, t.job_limit AS team_job_limit
FROM users AS u JOIN teams AS t ON t.id = u.current_team_id WHERE u.id = $1;

-- An email matches in any letter case.
-- name: UserByEmail
SELECT id, name, email, current_team_id FROM users WHERE email_fold = $1;
