-- One nullable key part: unique when present.
CREATE TABLE users (
    id bigint PRIMARY KEY,
    external_ref text,
    email text UNIQUE -- want: optional-unique "^users\.users_email_key \(email\): email may be NULL, so the index is unique when present: any number of users with no email are accepted$"
);
CREATE UNIQUE INDEX users_external_ref ON users (external_ref); -- want: optional-unique "external_ref may be NULL"
