SELECT events.id
FROM events
WHERE events.transaction_id IS NOT NULL;
