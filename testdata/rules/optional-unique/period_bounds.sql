-- The two bounds of one period are one value: a recurring invoice without
-- a charges period bills none, and has nothing to collide on within its
-- subscription.
CREATE TABLE subscriptions (id uuid PRIMARY KEY);
CREATE TABLE invoice_subscriptions (
    id uuid PRIMARY KEY,
    subscription_id uuid NOT NULL REFERENCES subscriptions (id),
    recurring boolean,
    charges_from_datetime timestamp,
    charges_to_datetime timestamp,
    fixed_charges_from_datetime timestamp,
    fixed_charges_to_datetime timestamp,
    valid_from date,
    expires_on date
);
CREATE UNIQUE INDEX invoice_subscriptions_charges_period ON invoice_subscriptions (subscription_id, charges_from_datetime, charges_to_datetime) WHERE recurring IS TRUE; -- want: optional-unique/info "charges_from_datetime and charges_to_datetime may be NULL, so among rows where recurring IS TRUE, invoice_subscriptions without charges_from_datetime \(or without charges_to_datetime\) are not deduplicated within subscription_id"

-- Near miss: the predicate forces the start, so a row without the end still
-- has the subscription and the start, and two of them bill one period twice.
CREATE UNIQUE INDEX invoice_subscriptions_fixed_period ON invoice_subscriptions (subscription_id, fixed_charges_from_datetime, fixed_charges_to_datetime) WHERE fixed_charges_from_datetime IS NOT NULL AND recurring IS TRUE; -- want: nullable-key/warning "fixed_charges_to_datetime may be NULL, so among rows where \(fixed_charges_from_datetime IS NOT NULL\) AND \(recurring IS TRUE\), two invoice_subscriptions with the same subscription_id and fixed_charges_from_datetime and no fixed_charges_to_datetime are both accepted$"

-- Near miss: two dates whose names are not the bounds of one period are two
-- values, each an identity beside the other.
CREATE UNIQUE INDEX invoice_subscriptions_validity ON invoice_subscriptions (subscription_id, valid_from, expires_on); -- want: nullable-key/warning "valid_from and expires_on may be NULL, so two invoice_subscriptions with the same subscription_id and no valid_from \(or no expires_on\) are both accepted"
