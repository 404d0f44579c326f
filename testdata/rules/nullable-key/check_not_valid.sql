-- A CHECK added NOT VALID says nothing about existing rows until validated.
CREATE TABLE claims (
    tenant_id bigint NOT NULL,
    claim_token text
);
ALTER TABLE claims ADD CONSTRAINT claim_token_present CHECK (claim_token IS NOT NULL) NOT VALID;
CREATE UNIQUE INDEX claims_token ON claims (tenant_id, claim_token); -- want: nullable-key "claim_token may be NULL, .* are both accepted \(CHECK claim_token_present is NOT VALID, so it proves nothing for existing rows\)$"

CREATE TABLE guards (
    tenant_id bigint NOT NULL,
    guard_token text
);
ALTER TABLE guards ADD CONSTRAINT guard_token_present CHECK (guard_token IS NOT NULL) NOT VALID;
ALTER TABLE guards VALIDATE CONSTRAINT guard_token_present;
CREATE UNIQUE INDEX guards_token ON guards (tenant_id, guard_token);
