-- Silent: the exclusive arc from RULES.md. Each arm's NULL rows are the other arm's rows.
CREATE TABLE subscription_entitlements (
    subscription_id bigint NOT NULL,
    feature_id bigint,
    privilege_id bigint,
    CONSTRAINT one_target CHECK ((feature_id IS NOT NULL) <> (privilege_id IS NOT NULL)),
    CONSTRAINT by_feature UNIQUE (subscription_id, feature_id),
    CONSTRAINT by_privilege UNIQUE (subscription_id, privilege_id)
);

CREATE TABLE grants (
    subscription_id bigint NOT NULL,
    feature_id bigint,
    privilege_id bigint,
    CHECK (num_nonnulls(feature_id, privilege_id) = 1)
);
CREATE UNIQUE INDEX grants_feature ON grants (subscription_id, feature_id);
CREATE UNIQUE INDEX grants_privilege ON grants (subscription_id, privilege_id);

CREATE TABLE links (
    owner_id bigint NOT NULL,
    user_id bigint,
    group_id bigint,
    CHECK (user_id IS NOT NULL OR group_id IS NOT NULL)
);
CREATE UNIQUE INDEX links_user ON links (owner_id, user_id);
CREATE UNIQUE INDEX links_group ON links (owner_id, group_id);
