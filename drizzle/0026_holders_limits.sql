ALTER TABLE "holders" ADD COLUMN "held_rub" numeric DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "holders" ADD COLUMN "payouts_allowed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "requisites_holder_idx" ON "requisites" USING btree ("holder_id") WHERE holder_id IS NOT NULL;--> statement-breakpoint
-- Backfill (docs/decisions.md "Holders' limits in the claim"): each holder's running RUB figure is
-- the sum of their ledger account in RUB.
UPDATE "holders" h SET "held_rub" = coalesce((
  SELECT sum(e."amount") FROM "ledger_entries" e
  WHERE e."account" = 'holder:' || h."id"::text AND e."currency" = 'RUB'), 0);
