-- An exclusive arc nothing declares: a participant is a user or a viewer,
-- and each kind has its own unique index. The rows without a user are the
-- viewers, which the other index keeps unique; only a row with neither
-- escapes both (ON DELETE SET NULL makes one). NOT NULL would break the
-- viewers and NULLS NOT DISTINCT would allow one viewer per conversation:
-- the fix declares the arc, and then the hole is covered.
CREATE TABLE conversations (id text PRIMARY KEY);
CREATE TABLE users (id text PRIMARY KEY);
CREATE TABLE viewers (id text PRIMARY KEY);
CREATE TABLE participants (
    id text PRIMARY KEY,
    conversation_id text NOT NULL REFERENCES conversations (id),
    user_id text REFERENCES users (id) ON DELETE SET NULL,
    viewer_id text REFERENCES viewers (id) ON DELETE SET NULL
);
CREATE UNIQUE INDEX participants_conversation_viewer ON participants (conversation_id, viewer_id); -- want: nullable-key/warning "viewer_id may be NULL, so two participants with the same conversation_id and no viewer_id are both accepted; rows without viewer_id are the other kind, with a user_id, which participants_conversation_user keeps unique, but nothing declares that one of viewer_id and user_id is set: a row with neither escapes both indexes$" fix "^declare that every row has viewer_id or user_id$"
CREATE UNIQUE INDEX participants_conversation_user ON participants (conversation_id, user_id); -- want: nullable-key/warning "rows without user_id are the other kind, with a viewer_id" fix "^declare that every row has user_id or viewer_id$"

-- Declared, it is the exclusive arc: silent.
CREATE TABLE members (
    id text PRIMARY KEY,
    conversation_id text NOT NULL REFERENCES conversations (id),
    user_id text REFERENCES users (id),
    viewer_id text REFERENCES viewers (id),
    CONSTRAINT members_one_kind CHECK (user_id IS NOT NULL OR viewer_id IS NOT NULL)
);
CREATE UNIQUE INDEX members_conversation_viewer ON members (conversation_id, viewer_id);
CREATE UNIQUE INDEX members_conversation_user ON members (conversation_id, user_id);

-- Near miss: the twin index has a value of the row's own, not a
-- reference, in the part's place: no arc, a plain link-row hole.
CREATE TABLE invites (
    id text PRIMARY KEY,
    conversation_id text NOT NULL REFERENCES conversations (id),
    user_id text REFERENCES users (id),
    email text
);
CREATE UNIQUE INDEX invites_conversation_user ON invites (conversation_id, user_id); -- want: nullable-key/warning "user_id may be NULL, so two invites with the same conversation_id and no user_id are both accepted; if every invite has a user_id, declare it NOT NULL" fix "^make user_id NOT NULL$"
CREATE UNIQUE INDEX invites_conversation_email ON invites (conversation_id, email); -- want: optional-unique/info "email may be NULL"
