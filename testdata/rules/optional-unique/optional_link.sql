-- A link the schema declares optional: an account belongs to its auth
-- method (deleted with it, ON DELETE CASCADE) and is linked to a user once
-- there is one; when the user goes, the account stays (ON DELETE SET NULL).
-- UNIQUE (auth_method_id, user_id) keeps one account per user and method,
-- and unlinked accounts are many by design: the foreign keys say so, so the
-- user reads as the account's own optional link, unique when present.
CREATE TABLE auth_methods (id text PRIMARY KEY);
CREATE TABLE users (id text PRIMARY KEY);
CREATE TABLE auth_accounts (
    id text PRIMARY KEY,
    auth_method_id text NOT NULL REFERENCES auth_methods (id) ON DELETE CASCADE,
    user_id text REFERENCES users (id) ON DELETE SET NULL,
    login_name text NOT NULL,
    CONSTRAINT auth_accounts_method_user_uq UNIQUE (auth_method_id, user_id) -- want: optional-unique/info "user_id may be NULL, so auth_accounts without user_id are not deduplicated within auth_method_id"
);

-- Near miss: the owner is not deleted with the row's parent (no CASCADE):
-- nothing says the row belongs to it, so the user is a plain reference, and
-- a hole (a link row).
CREATE TABLE api_accounts (
    id text PRIMARY KEY,
    auth_method_id text NOT NULL REFERENCES auth_methods (id),
    user_id text REFERENCES users (id) ON DELETE SET NULL,
    CONSTRAINT api_accounts_method_user_uq UNIQUE (auth_method_id, user_id) -- want: nullable-key/warning "user_id may be NULL, so two api_accounts with the same auth_method_id and no user_id are both accepted" fix "^make user_id NOT NULL$"
);

-- Near miss: the link is not declared optional (no SET NULL): a hole.
CREATE TABLE sso_accounts (
    id text PRIMARY KEY,
    auth_method_id text NOT NULL REFERENCES auth_methods (id) ON DELETE CASCADE,
    user_id text REFERENCES users (id),
    CONSTRAINT sso_accounts_method_user_uq UNIQUE (auth_method_id, user_id) -- want: nullable-key/warning "user_id may be NULL, so two sso_accounts with the same auth_method_id and no user_id are both accepted"
);

-- Near miss: an identity beside the optional link is still left: a hole.
CREATE TABLE named_accounts (
    id text PRIMARY KEY,
    auth_method_id text NOT NULL REFERENCES auth_methods (id) ON DELETE CASCADE,
    login_name text NOT NULL,
    user_id text REFERENCES users (id) ON DELETE SET NULL,
    CONSTRAINT named_accounts_uq UNIQUE (auth_method_id, login_name, user_id) -- want: nullable-key/warning "user_id may be NULL, so two named_accounts with the same auth_method_id and login_name and no user_id are both accepted"
);
