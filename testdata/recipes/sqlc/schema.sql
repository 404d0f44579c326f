-- sqlc's schema file: plain SQL, linted as it is.
CREATE TABLE charges (
    id bigserial PRIMARY KEY,
    account_id bigint NOT NULL,
    kind text NOT NULL,
    address text NOT NULL,
    namespace text,
    UNIQUE (account_id, kind, address, namespace)
);
