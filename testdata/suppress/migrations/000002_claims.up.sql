CREATE TABLE claims (
    account_id bigint NOT NULL,
    kind       text NOT NULL,
    namespace  text,
    scope      text
);

-- idemcheck:ignore nullable-key namespace is NULL only for the ledger-wide claim, which a trigger keeps unique
CREATE UNIQUE INDEX claims_namespace_key ON claims (account_id, kind, namespace);

-- No directive: this hole is reported.
CREATE UNIQUE INDEX claims_scope_key ON claims (account_id, kind, scope);

-- idemcheck:ignore nullable-key stale: this index is not unique, there is nothing to ignore
CREATE INDEX claims_kind ON claims (account_id, kind);
