-- Claims whose lease ran out are found through an index, not by reading every operation (the requeue runs about
-- once a second, and the table grows with the fleet). Keep in step with the other backend's 0002.
CREATE INDEX operations_leases ON operations (lease_until) WHERE finished = 0 AND claimed_by IS NOT NULL;
