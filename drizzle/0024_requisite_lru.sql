DROP INDEX "requisites_pick_idx";--> statement-breakpoint
ALTER TABLE "requisites" ADD COLUMN "last_order_seq" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Each requisite's place in the least recently assigned rule, as it was derived until now: the
-- highest seq among its orders, 0 for a requisite never assigned (docs/decisions.md section 18).
UPDATE "requisites" AS r SET "last_order_seq" = last.seq
  FROM (SELECT "requisite_id", max("seq") AS seq FROM "orders" WHERE "requisite_id" IS NOT NULL GROUP BY "requisite_id") AS last
  WHERE last."requisite_id" = r."id";--> statement-breakpoint
CREATE INDEX "requisites_lru_idx" ON "requisites" USING btree ("currency","kind","last_order_seq","id") WHERE enabled AND paused_reason IS NULL;--> statement-breakpoint
CREATE INDEX "requisites_bank_lru_idx" ON "requisites" USING btree ("currency","kind","bank_code","last_order_seq","id") WHERE enabled AND paused_reason IS NULL;
--> statement-breakpoint
-- Every claim leaves the taken requisite's old version at the head of the LRU index: vacuum the
-- (small) table after every 1,000 of them, whatever its size, so the head stays short.
ALTER TABLE "requisites" SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
