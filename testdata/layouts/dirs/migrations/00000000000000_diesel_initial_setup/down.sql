DROP FUNCTION IF EXISTS diesel_manage_updated_at(_tbl regclass);
