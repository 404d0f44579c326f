-- Info: the migration is named for removing the constraint (this file is
-- the migration), so the drop is declared deliberate.
CREATE TABLE bulk_action_items (
    id text PRIMARY KEY,
    group_id text NOT NULL,
    friendly_id text NOT NULL,
    CONSTRAINT bulk_action_items_friendly_id_key UNIQUE (friendly_id)
);
ALTER TABLE bulk_action_items DROP CONSTRAINT bulk_action_items_friendly_id_key; -- want: unique-dropped/info "^bulk_action_items.bulk_action_items_friendly_id_key \(friendly_id\): the unique constraint is dropped in a migration named for it \(remove_unique_constraint\), so the loss is intended: from here on rows with the same friendly_id are all accepted$"
