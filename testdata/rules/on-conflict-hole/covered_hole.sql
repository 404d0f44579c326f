-- Positive: the split covers the hole for plain inserts, but the arbiter
-- still has it: the insert fails on the split index instead of DO NOTHING.
CREATE TABLE memberships (
    account_id bigint NOT NULL,
    team_id bigint,
    user_id bigint NOT NULL
);
CREATE UNIQUE INDEX memberships_key ON memberships (account_id, team_id, user_id);
CREATE UNIQUE INDEX memberships_no_team ON memberships (account_id, user_id) WHERE team_id IS NULL;
INSERT INTO memberships VALUES (1, NULL, 2) ON CONFLICT (account_id, team_id, user_id) DO NOTHING; -- want: on-conflict-hole "lets team_id be NULL, and when it is the conflict never fires: a repeated request fails with a unique violation \(23505\) on memberships_no_team instead of DO NOTHING"
TRUNCATE memberships;
