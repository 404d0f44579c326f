-- The arc CHECK is there but only one arm has an index: privilege rows are unlimited.
CREATE TABLE plan_entitlements (
    subscription_id bigint NOT NULL,
    feature_id bigint,
    privilege_id bigint,
    CONSTRAINT one_target CHECK ((feature_id IS NOT NULL) <> (privilege_id IS NOT NULL))
);
CREATE UNIQUE INDEX plan_entitlements_feature ON plan_entitlements (subscription_id, feature_id); -- want: nullable-key "feature_id may be NULL"
