CREATE UNIQUE INDEX users_client_key ON flipr.users (nickname, client_key);
