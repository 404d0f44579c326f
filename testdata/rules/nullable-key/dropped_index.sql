-- Silent: the leaky index is gone.
CREATE TABLE coupons (
    campaign_id bigint NOT NULL,
    code text
);
CREATE UNIQUE INDEX coupons_code ON coupons (campaign_id, code);
DROP INDEX coupons_code;
CREATE UNIQUE INDEX coupons_code_present ON coupons (campaign_id, code) WHERE code IS NOT NULL;
