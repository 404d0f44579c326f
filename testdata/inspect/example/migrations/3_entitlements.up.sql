-- The exclusive arc: each row names a feature or a privilege, never both,
-- so the two unique indexes together leave no hole.
CREATE TABLE entitlements (
    subscription_id bigint NOT NULL,
    feature_id bigint,
    privilege_id bigint,
    CHECK ((feature_id IS NOT NULL) <> (privilege_id IS NOT NULL))
);
CREATE UNIQUE INDEX entitlements_feature ON entitlements (subscription_id, feature_id);
CREATE UNIQUE INDEX entitlements_privilege ON entitlements (subscription_id, privilege_id);
