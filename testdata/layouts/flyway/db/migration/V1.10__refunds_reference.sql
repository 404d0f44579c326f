CREATE UNIQUE INDEX refunds_merchant_reference ON refunds (merchant_id, reference);
