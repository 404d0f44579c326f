ALTER TABLE sessions ADD COLUMN user_id bigint;
