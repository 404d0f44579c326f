ALTER TABLE posts ADD COLUMN slug text;
CREATE UNIQUE INDEX posts_slug ON posts (slug);
