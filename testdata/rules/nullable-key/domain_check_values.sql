-- The witness fills every required column with a value its domain's
-- CHECKs accept, for the shapes such CHECKs take: a length bound through
-- trim, char_length between bounds, a regular expression (a class, a
-- negated class, a length beside it), a numeric range and a bound on an
-- expression of the value. The key is an identifier of 11 characters or
-- more, as generated ids are, and the primary key needs a second one.
CREATE DOMAIN token_id AS text CHECK (length(trim(value)) > 10);
CREATE DOMAIN region_code AS text CHECK (value ~ '^[A-Z]{2}-[0-9]+$');
CREATE DOMAIN web_address AS text
    CONSTRAINT web_address_too_short CHECK (length(trim(value)) > 3)
    CONSTRAINT web_address_scheme CHECK (value ~ 'https?:\/\/*');
CREATE DOMAIN short_label AS text CHECK (char_length(value) BETWEEN 4 AND 8) CHECK (trim(value) = value);
CREATE DOMAIN port_number AS integer CHECK (value > 1023 AND value <= 65535);
CREATE DOMAIN grant_pair AS text CHECK (value ~ '^[^;=]+=[^;=]+$');
CREATE DOMAIN shout AS text CHECK (value ~ '^[A-Z]+$' AND length(value) >= 5);
CREATE DOMAIN fee_cents AS bigint CHECK (value * 100 > 5000);
CREATE TABLE connectors (
    public_id token_id PRIMARY KEY,
    tenant_id token_id NOT NULL,
    region region_code NOT NULL,
    homepage web_address NOT NULL,
    endpoint web_address,
    client_id text CHECK (length(trim(client_id)) > 0),
    port port_number NOT NULL,
    grants grant_pair NOT NULL,
    title short_label NOT NULL,
    tag shout NOT NULL,
    fee fee_cents NOT NULL,
    CONSTRAINT connectors_tenant_endpoint_client_key UNIQUE (tenant_id, endpoint, client_id) -- want: nullable-key/warning "endpoint and client_id may be NULL, so two connectors with the same tenant_id and no endpoint \(or no client_id\) are both accepted" fix "NULLS NOT DISTINCT"
);
