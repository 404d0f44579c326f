-- A polymorphic reference (source_type, source_id) left wholly NULL
-- attaches the row to no source at all: it is the user's own row (the
-- global setting), one per user, so two of them are duplicates.
CREATE TABLE users (id bigint PRIMARY KEY);
CREATE TABLE notification_settings (
    id bigint PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users (id),
    source_type text,
    source_id bigint,
    level integer NOT NULL
);
CREATE UNIQUE INDEX index_notification_settings_on_user_and_source ON notification_settings (user_id, source_type, source_id); -- want: nullable-key/warning "^notification_settings\.index_notification_settings_on_user_and_source \(user_id, source_type, source_id\): source_type and source_id may be NULL, so two notification_settings with the same user_id and no source_type \(or no source_id\) are both accepted$"

-- Near miss: the type is required and only the id may be missing; only a
-- discriminator is left beside it (one open payment per payable).
CREATE TABLE payments (
    id uuid PRIMARY KEY,
    payable_type text NOT NULL,
    payable_id uuid,
    status text NOT NULL
);
CREATE UNIQUE INDEX one_open_payment_per_payable ON payments (payable_id, payable_type) WHERE status IN ('pending', 'processing'); -- want: optional-unique/info "payable_id may be NULL, so among rows where"

-- Near miss: the pair beside the row's own optional name is a parent scope
-- for the name, not a row of its own.
CREATE TABLE folders (
    id bigint PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users (id),
    owner_type text,
    owner_id bigint,
    name text
);
CREATE UNIQUE INDEX folders_owner_name ON folders (user_id, owner_type, owner_id, name); -- want: optional-unique/info "owner_type, owner_id and name may be NULL"
