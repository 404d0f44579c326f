-- idemcheck:ignore-file optional-unique accounts may sign up without an email; one per address when present
CREATE TABLE accounts (
    id    bigint PRIMARY KEY,
    email text UNIQUE,
    phone text UNIQUE
);
