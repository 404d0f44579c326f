CREATE TABLE flipr.users (nickname text PRIMARY KEY, password text NOT NULL, client_key text);
