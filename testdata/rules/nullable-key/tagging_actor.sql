-- Issue 25, shape 6: an optional actor beside a full identity. The tagger
-- is NULL for ordinary tags, so the same tag on the same record in the
-- same context is stored twice. An actor is never the row's own optional
-- value, and NULL means "no one credited", so NULLS NOT DISTINCT comes
-- first.
CREATE TABLE tags (id bigint PRIMARY KEY, name text NOT NULL);
CREATE TABLE taggings (
    id bigserial PRIMARY KEY,
    tag_id bigint NOT NULL REFERENCES tags (id),
    taggable_type character varying NOT NULL,
    taggable_id bigint NOT NULL,
    context character varying(128) NOT NULL,
    tagger_type character varying,
    tagger_id bigint
);
CREATE UNIQUE INDEX taggings_idx ON taggings (tag_id, taggable_id, taggable_type, context, tagger_id, tagger_type); -- want: nullable-key/warning "^taggings\.taggings_idx \(tag_id, taggable_id, taggable_type, context, tagger_id, tagger_type\): tagger_id and tagger_type may be NULL, so two taggings with the same tag_id, taggable_id, taggable_type and context and no tagger_id \(or no tagger_type\) are both accepted$" fix "^rebuild taggings_idx NULLS NOT DISTINCT"

-- As the gem's migration leaves it, every part nullable: the references
-- and the actor are holes, and the context, a value of the row's own beside
-- only references, is unique when present. The first fix makes NULL count
-- among rows with a context.
CREATE TABLE loose_taggings (
    id bigserial PRIMARY KEY,
    tag_id bigint REFERENCES tags (id),
    taggable_type character varying,
    taggable_id bigint,
    context character varying(128),
    tagger_type character varying,
    tagger_id bigint
);
CREATE UNIQUE INDEX loose_taggings_idx ON loose_taggings (tag_id, taggable_id, taggable_type, context, tagger_id, tagger_type); -- want: nullable-key/warning "tag_id, taggable_id, taggable_type, tagger_id and tagger_type may be NULL" fix "^add a NULLS NOT DISTINCT unique index for rows where context is present" optional-unique/info "context may be NULL, so loose_taggings without context are not deduplicated within tag_id, taggable_id, taggable_type, tagger_id and tagger_type"

-- Near miss: the tagger required, silent.
CREATE TABLE user_taggings (
    id bigserial PRIMARY KEY,
    tag_id bigint NOT NULL REFERENCES tags (id),
    taggable_type character varying NOT NULL,
    taggable_id bigint NOT NULL,
    tagger_type character varying NOT NULL,
    tagger_id bigint NOT NULL
);
CREATE UNIQUE INDEX user_taggings_idx ON user_taggings (tag_id, taggable_id, taggable_type, tagger_id, tagger_type);
