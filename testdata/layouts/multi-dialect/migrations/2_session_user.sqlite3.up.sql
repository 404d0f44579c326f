ALTER TABLE sessions ADD COLUMN user_id integer;
