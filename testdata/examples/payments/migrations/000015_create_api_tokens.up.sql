-- API token names are unique per organization and team. Organization-wide
-- tokens have no team; NULLS NOT DISTINCT keeps their names unique too
-- (PostgreSQL 15 and later).
CREATE TABLE api_tokens (
    id       bigserial PRIMARY KEY,
    org_id   bigint NOT NULL,
    team_id  bigint,
    name     text NOT NULL,
    CONSTRAINT api_tokens_name_key UNIQUE NULLS NOT DISTINCT (org_id, team_id, name)
);
