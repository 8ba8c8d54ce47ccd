-- test/pg_upgrade/grow.sql: the new cluster writes into sups_grow, whose
-- GiST and bloomslice indexes the old cluster built: inserts past
-- bloomslice's pending area (it flushes into blocks beside the old
-- cluster's), updates, deletes, VACUUM, and a few rows left pending.
-- :round (1, 2) keeps each round's ids apart.  indexes.sql checks after.
SET client_min_messages = error;
INSERT INTO sups_grow SELECT :round * 10000 + i, sup_filter(:round * 10000 + i) FROM generate_series(1, 400) i;
UPDATE sups_grow SET f = sup_filter(id + 7) WHERE id % 11 = :round;
DELETE FROM sups_grow WHERE id % 13 = :round;
VACUUM sups_grow;
INSERT INTO sups_grow SELECT :round * 10000 + 500 + i, sup_filter(:round * 10000 + 500 + i) FROM generate_series(1, 25) i;
