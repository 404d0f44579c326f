-- The runner executes every file as a Go template with the schema in
-- .Options (gobuffalo/pop style); nothing here is valid SQL until then.
CREATE SCHEMA IF NOT EXISTS {{ index .Options "Namespace" }};

CREATE TABLE {{ index .Options "Namespace" }}.sessions (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    refresh_token text NOT NULL,
    client_id text
);
