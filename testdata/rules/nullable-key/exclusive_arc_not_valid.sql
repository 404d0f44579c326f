-- An arc CHECK that is NOT VALID proves nothing: both holes stay open.
CREATE TABLE seats (
    plan_id bigint NOT NULL,
    user_id bigint,
    bot_id bigint
);
ALTER TABLE seats ADD CONSTRAINT one_holder CHECK ((user_id IS NOT NULL) <> (bot_id IS NOT NULL)) NOT VALID;
CREATE UNIQUE INDEX seats_user ON seats (plan_id, user_id); -- want: nullable-key "user_id may be NULL"
CREATE UNIQUE INDEX seats_bot ON seats (plan_id, bot_id); -- want: nullable-key "bot_id may be NULL"
