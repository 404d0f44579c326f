-- INCLUDE columns are not key parts and never matter.
CREATE TABLE users (id bigint PRIMARY KEY);
CREATE TABLE sessions (
    user_id bigint NOT NULL,
    device text NOT NULL,
    note text,
    ip inet
);
CREATE UNIQUE INDEX sessions_device ON sessions (user_id, device) INCLUDE (note);
CREATE UNIQUE INDEX sessions_ip ON sessions (user_id, ip) INCLUDE (device); -- want: optional-unique "^sessions\.sessions_ip \(user_id, ip\): ip may be NULL, so sessions without ip are not deduplicated within user_id"
