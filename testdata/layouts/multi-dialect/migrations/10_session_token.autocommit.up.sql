CREATE UNIQUE INDEX CONCURRENTLY sessions_user_token ON sessions (user_id, token);
