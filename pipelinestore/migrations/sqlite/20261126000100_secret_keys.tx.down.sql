DROP TABLE secret_keys;
