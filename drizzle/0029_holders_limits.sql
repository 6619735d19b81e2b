CREATE TABLE "holder_payouts" (
	"order_id" text PRIMARY KEY NOT NULL,
	"holder_id" uuid NOT NULL,
	"currency" text NOT NULL,
	"amount" numeric NOT NULL,
	"assigned_by" text NOT NULL,
	"assigned_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "holder_payouts_amount_ck" CHECK ("holder_payouts"."amount" > 0)
);
--> statement-breakpoint
ALTER TABLE "holders" ADD COLUMN "held_rub" numeric DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "holders" ADD COLUMN "payouts_allowed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "holder_payouts" ADD CONSTRAINT "holder_payouts_holder_id_holders_id_fk" FOREIGN KEY ("holder_id") REFERENCES "public"."holders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "holder_payouts_holder_idx" ON "holder_payouts" USING btree ("holder_id");--> statement-breakpoint
CREATE INDEX "requisites_holder_idx" ON "requisites" USING btree ("holder_id") WHERE holder_id IS NOT NULL;--> statement-breakpoint
-- Backfill (docs/decisions.md "Holders' limits in the claim"): each holder's running RUB figure is
-- the sum of their ledger account in RUB.
UPDATE "holders" h SET "held_rub" = coalesce((
  SELECT sum(e."amount") FROM "ledger_entries" e
  WHERE e."account" = 'holder:' || h."id"::text AND e."currency" = 'RUB'), 0);
