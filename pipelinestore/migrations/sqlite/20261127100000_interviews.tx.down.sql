DROP TABLE interview_interviewers;
--bun:split
DROP TABLE interviews;
