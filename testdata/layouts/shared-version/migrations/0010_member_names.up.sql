ALTER TABLE members ADD COLUMN display_name text;
