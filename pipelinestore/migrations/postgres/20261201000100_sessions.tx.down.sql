DROP TABLE token_forms;
--bun:split
DROP TABLE sessions;
--bun:split
DROP TABLE sign_in_links;
