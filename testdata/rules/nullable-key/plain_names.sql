-- Nothing here is named like an idempotency key: still a hole.
CREATE TABLE memberships (
    team_id bigint NOT NULL,
    user_id bigint,
    role text NOT NULL
);
CREATE UNIQUE INDEX memberships_team_user ON memberships (team_id, user_id); -- want: nullable-key "user_id may be NULL, so two memberships with the same team_id and no user_id are both accepted"
