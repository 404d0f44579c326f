-- Silent: validated CHECKs whose top-level conjuncts reject NULL.
CREATE TABLE charges (
    account_id bigint NOT NULL,
    request_id text,
    region text,
    source text,
    channel text,
    CONSTRAINT request_present CHECK (request_id IS NOT NULL AND length(request_id) > 0),
    CONSTRAINT region_present CHECK (NOT (region IS NULL)),
    CONSTRAINT source_present CHECK (num_nulls(source, region) = 0),
    CONSTRAINT channel_present CHECK (num_nonnulls(channel) = 1)
);
CREATE UNIQUE INDEX charges_request ON charges (account_id, request_id);
CREATE UNIQUE INDEX charges_region ON charges (account_id, region, source, channel);
