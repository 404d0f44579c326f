-- Issue 25, shape 1: a link row whose ends are nullable references, as
-- Rails' t.references leaves them without null: false. In a link row the
-- pair is the identity: with one end NULL the other is still left, and a
-- NULL end links nothing. Every key part is a reference, so the first fix
-- is NOT NULL, with the count that must be 0 first.
CREATE TABLE users (id bigint PRIMARY KEY);
CREATE TABLE gems (id bigint PRIMARY KEY);
CREATE TABLE ownerships (
    id bigserial PRIMARY KEY,
    user_id bigint REFERENCES users (id),
    gem_id bigint REFERENCES gems (id),
    created_at timestamp NOT NULL
);
CREATE UNIQUE INDEX index_ownerships_on_user_id_and_gem_id ON ownerships (user_id, gem_id); -- want: nullable-key/warning "^ownerships\.index_ownerships_on_user_id_and_gem_id \(user_id, gem_id\): user_id and gem_id may be NULL, so two ownerships with no user_id \(or no gem_id\) are both accepted; if every ownership has a user_id and a gem_id, declare them NOT NULL: SELECT count\(\*\) FROM ownerships WHERE user_id IS NULL OR gem_id IS NULL must be 0$" fix "^make user_id and gem_id NOT NULL$"

-- The same without foreign key constraints: the names match tables of the
-- schema through the inflector (cycle_id, cycles; payment_method_id,
-- payment_methods), so they are references too.
CREATE TABLE cycles (id bigint PRIMARY KEY);
CREATE TABLE payment_methods (id bigint PRIMARY KEY);
CREATE TABLE cycle_payment_methods (
    id bigserial PRIMARY KEY,
    cycle_id bigint,
    payment_method_id bigint
);
CREATE UNIQUE INDEX cycle_payment_methods_pair ON cycle_payment_methods (cycle_id, payment_method_id); -- want: nullable-key/warning "cycle_id and payment_method_id may be NULL, so two cycle_payment_methods with no cycle_id \(or no payment_method_id\) are both accepted; if every cycle_payment_method has a cycle_id and a payment_method_id" fix "^make cycle_id and payment_method_id NOT NULL$"

-- Irregular plurals: person_id points at people, status_id at statuses.
CREATE TABLE people (id bigint PRIMARY KEY);
CREATE TABLE statuses (id bigint PRIMARY KEY);
CREATE TABLE person_statuses (
    person_id bigint NOT NULL,
    status_id bigint
);
CREATE UNIQUE INDEX person_statuses_pair ON person_statuses (person_id, status_id); -- want: nullable-key/warning "status_id may be NULL, so two person_statuses with the same person_id and no status_id are both accepted" fix "^make status_id NOT NULL$"

-- Near miss: both ends NOT NULL, silent.
CREATE TABLE memberships (
    id bigserial PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users (id),
    gem_id bigint NOT NULL REFERENCES gems (id)
);
CREATE UNIQUE INDEX index_memberships_on_user_id_and_gem_id ON memberships (user_id, gem_id);

-- Near miss: the row's own optional name under a NOT NULL parent stays
-- unique when present.
CREATE TABLE gem_aliases (
    id bigserial PRIMARY KEY,
    gem_id bigint NOT NULL REFERENCES gems (id),
    name text
);
CREATE UNIQUE INDEX index_gem_aliases_on_gem_id_and_name ON gem_aliases (gem_id, name); -- want: optional-unique/info "name may be NULL, so gem_aliases without name are not deduplicated within gem_id; intended when a row may have no name"
