-- Silent: one ALTER TABLE drops the surrogate key's column and makes the
-- natural key primary; the old key has no column left to keep unique.
CREATE TABLE project_members (
    id bigint NOT NULL,
    project_id bigint NOT NULL,
    user_id bigint NOT NULL,
    CONSTRAINT project_members_pkey PRIMARY KEY (id)
);
ALTER TABLE project_members DROP COLUMN id, ADD PRIMARY KEY (project_id, user_id);

CREATE TABLE label_links (
    id bigserial PRIMARY KEY,
    label_id bigint NOT NULL,
    target_id bigint NOT NULL
);
ALTER TABLE label_links DROP COLUMN id, ADD PRIMARY KEY (label_id, target_id);

-- Silent: the same statement swaps the constraint for one over part of the
-- key.
CREATE TABLE api_keys (
    account_id bigint NOT NULL,
    prefix text NOT NULL,
    CONSTRAINT api_keys_account_prefix UNIQUE (account_id, prefix)
);
ALTER TABLE api_keys DROP CONSTRAINT api_keys_account_prefix, ADD CONSTRAINT api_keys_prefix UNIQUE (prefix);

-- Positive: the primary key moves to other columns and id stays: ids may
-- repeat from here on.
CREATE TABLE seats (
    id bigint NOT NULL,
    team_id bigint NOT NULL,
    seat_no integer NOT NULL,
    CONSTRAINT seats_pkey PRIMARY KEY (id)
);
ALTER TABLE seats DROP CONSTRAINT seats_pkey, ADD PRIMARY KEY (team_id, seat_no); -- want: unique-dropped "^seats.seats_pkey \(id\): the primary key is dropped and no migration restores uniqueness over \(id\) or part of it"
