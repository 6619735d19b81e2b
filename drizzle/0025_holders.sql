CREATE TABLE "holder_settlements" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"holder_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"currency" text NOT NULL,
	"amount" numeric NOT NULL,
	"method" text,
	"reference" text,
	"tx_hash" text,
	"reason" text,
	"journal_id" uuid NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "holder_settlements_kind_ck" CHECK ("holder_settlements"."kind" IN ('settlement', 'correction')),
	CONSTRAINT "holder_settlements_method_ck" CHECK ("holder_settlements"."method" IS NULL OR "holder_settlements"."method" IN ('bank_transfer', 'cash', 'usdt')),
	CONSTRAINT "holder_settlements_amount_ck" CHECK ("holder_settlements"."amount" <> 0)
);
--> statement-breakpoint
CREATE TABLE "holders" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"contacts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"commission_percent" numeric DEFAULT '0' NOT NULL,
	"exposure_limit" numeric,
	"security_deposit" numeric,
	"from_migration" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "holders_status_ck" CHECK ("holders"."status" IN ('active', 'suspended')),
	CONSTRAINT "holders_money_ck" CHECK ("holders"."commission_percent" >= 0 AND "holders"."commission_percent" <= 100 AND ("holders"."exposure_limit" IS NULL OR "holders"."exposure_limit" >= 0) AND ("holders"."security_deposit" IS NULL OR "holders"."security_deposit" >= 0))
);
--> statement-breakpoint
ALTER TABLE "requisites" DROP CONSTRAINT "requisites_paused_ck";--> statement-breakpoint
ALTER TABLE "trader_devices" ADD COLUMN "holder_id" uuid;--> statement-breakpoint
ALTER TABLE "requisites" ADD COLUMN "holder_id" uuid;--> statement-breakpoint
ALTER TABLE "holder_settlements" ADD CONSTRAINT "holder_settlements_holder_id_holders_id_fk" FOREIGN KEY ("holder_id") REFERENCES "public"."holders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "holder_settlements_holder_idx" ON "holder_settlements" USING btree ("holder_id","created_at");--> statement-breakpoint
CREATE INDEX "holders_name_idx" ON "holders" USING btree ("name");--> statement-breakpoint
ALTER TABLE "requisites" ADD CONSTRAINT "requisites_holder_id_holders_id_fk" FOREIGN KEY ("holder_id") REFERENCES "public"."holders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "requisites" ADD CONSTRAINT "requisites_paused_ck" CHECK ("requisites"."paused_reason" IS NULL OR "requisites"."paused_reason" IN ('block', 'stale', 'liveness', 'holder'));--> statement-breakpoint
-- Backfill (docs/decisions.md "Holders' money"): one holder per distinct requisites' holder name
-- (trimmed), marked from_migration so that operators can review and merge them in the admin list.
INSERT INTO "holders" ("name", "from_migration")
SELECT DISTINCT btrim("holder_name"), 'holder_name' FROM "requisites" WHERE btrim("holder_name") <> '';--> statement-breakpoint
UPDATE "requisites" r SET "holder_id" = h."id"
FROM "holders" h WHERE h."from_migration" = 'holder_name' AND h."name" = btrim(r."holder_name");--> statement-breakpoint
-- A phone belongs to the holder of its bound requisites when they all have one holder.
UPDATE "trader_devices" d SET "holder_id" = x."holder_id"
FROM (
  SELECT dr."device_id", min(r."holder_id"::text)::uuid AS "holder_id"
  FROM "device_requisites" dr JOIN "requisites" r ON r."id" = dr."requisite_id"
  GROUP BY dr."device_id" HAVING count(DISTINCT r."holder_id") = 1
) x WHERE d."id" = x."device_id";
