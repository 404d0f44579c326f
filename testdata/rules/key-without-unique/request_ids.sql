-- Silent: the id of a SAML request the server itself sends, kept to match
-- the identity provider's answer. Nothing looks rows up by it: no index
-- reads it.
CREATE TABLE sso_providers (
    id uuid PRIMARY KEY
);
CREATE TABLE saml_relay_states (
    id uuid NOT NULL,
    sso_provider_id uuid NOT NULL,
    request_id text NOT NULL,
    for_email text,
    redirect_to text,
    created_at timestamptz,
    PRIMARY KEY (id),
    FOREIGN KEY (sso_provider_id) REFERENCES sso_providers (id) ON DELETE CASCADE,
    CONSTRAINT "request_id not empty" CHECK (char_length(request_id) > 0)
);
CREATE INDEX saml_relay_states_sso_provider_id_idx ON saml_relay_states (sso_provider_id);

-- Silent: a request id logged with each audit entry.
CREATE TABLE audit_log_entries (
    id uuid PRIMARY KEY,
    x_request_id text,
    payload json
);

-- Positive: the same request id, looked up before each insert.
CREATE TABLE payment_attempts (
    id uuid PRIMARY KEY,
    request_id text NOT NULL -- want: key-without-unique "payment_attempts.request_id"
);
CREATE INDEX payment_attempts_request_id_idx ON payment_attempts (request_id);
