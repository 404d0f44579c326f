-- An entitlement grants a subscription either a feature or a privilege,
-- never both (an exclusive arc). Each pair is unique; the CHECK makes sure
-- the unused side is the only NULL, so neither unique index has a hole
-- that matters. NULLS NOT DISTINCT here would be wrong: it would allow only
-- one privilege row per subscription.
CREATE TABLE entitlements (
    id               bigserial PRIMARY KEY,
    subscription_id  bigint NOT NULL,
    feature_id       bigint,
    privilege_id     bigint,
    granted_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT entitlements_feature_or_privilege
        CHECK ((feature_id IS NOT NULL) <> (privilege_id IS NOT NULL))
);

CREATE UNIQUE INDEX entitlements_subscription_feature_key
    ON entitlements (subscription_id, feature_id);

CREATE UNIQUE INDEX entitlements_subscription_privilege_key
    ON entitlements (subscription_id, privilege_id);
