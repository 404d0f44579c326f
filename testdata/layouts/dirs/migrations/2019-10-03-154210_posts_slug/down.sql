DROP INDEX posts_slug; ALTER TABLE posts DROP COLUMN slug;
