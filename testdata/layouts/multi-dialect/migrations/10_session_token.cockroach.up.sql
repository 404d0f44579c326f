CREATE UNIQUE INDEX sessions_user_token ON sessions (user_id, token);
