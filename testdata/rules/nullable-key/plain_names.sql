-- Nothing here is named like an idempotency key: still a hole.
CREATE TABLE memberships (
    team_id bigint NOT NULL,
    user_id bigint,
    role text NOT NULL
);
CREATE UNIQUE INDEX memberships_team_user ON memberships (team_id, user_id); -- want: optional-unique "user_id may be NULL, so memberships without user_id are not deduplicated within team_id; intended when a row may have no user_id$"
