-- Predicates that stay TRUE when the key part is NULL force nothing.
CREATE TABLE tasks (
    queue text NOT NULL,
    done boolean,
    open boolean,
    attempt int,
    owner text
);
CREATE UNIQUE INDEX tasks_a ON tasks (queue, done) WHERE done IS NOT TRUE; -- want: optional-unique "done may be NULL, so among rows where done IS NOT TRUE, tasks without done are not deduplicated within queue"
CREATE UNIQUE INDEX tasks_b ON tasks (queue, open) WHERE open IS NOT FALSE; -- want: optional-unique "open may be NULL"
CREATE UNIQUE INDEX tasks_c ON tasks (queue, attempt) WHERE coalesce(attempt, 0) = 1; -- want: optional-unique "attempt may be NULL"
CREATE UNIQUE INDEX tasks_d ON tasks (queue, owner) WHERE owner IS NULL; -- want: optional-unique "owner may be NULL"
CREATE UNIQUE INDEX tasks_e ON tasks (queue, owner) WHERE owner IS DISTINCT FROM 'root'; -- want: optional-unique "owner may be NULL"
