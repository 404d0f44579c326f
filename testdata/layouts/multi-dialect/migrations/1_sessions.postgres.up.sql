CREATE TABLE sessions (id bigserial PRIMARY KEY, token text);
