-- Predicates that stay TRUE when the key part is NULL force nothing.
CREATE TABLE tasks (
    queue text NOT NULL,
    done boolean,
    open boolean,
    attempt int,
    owner text
);
CREATE UNIQUE INDEX tasks_a ON tasks (queue, done) WHERE done IS NOT TRUE; -- want: nullable-key "done may be NULL, so among rows where done IS NOT TRUE, two tasks with the same queue and no done are both accepted"
CREATE UNIQUE INDEX tasks_b ON tasks (queue, open) WHERE open IS NOT FALSE; -- want: nullable-key "open may be NULL"
CREATE UNIQUE INDEX tasks_c ON tasks (queue, attempt) WHERE coalesce(attempt, 0) = 1; -- want: nullable-key "attempt may be NULL"
CREATE UNIQUE INDEX tasks_d ON tasks (queue, owner) WHERE owner IS NULL; -- want: nullable-key "owner may be NULL"
CREATE UNIQUE INDEX tasks_e ON tasks (queue, owner) WHERE owner IS DISTINCT FROM 'root'; -- want: nullable-key "owner may be NULL"
