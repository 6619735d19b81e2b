CREATE TABLE "rate_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"base" text NOT NULL,
	"quote" text NOT NULL,
	"kind" text NOT NULL,
	"rate" numeric,
	"sources" jsonb NOT NULL,
	"expires_at" timestamp with time zone,
	"actor" text,
	"recorded_at" timestamp with time zone NOT NULL,
	CONSTRAINT "rate_history_kind_ck" CHECK ("rate_history"."kind" IN ('override', 'median', 'none'))
);
--> statement-breakpoint
CREATE TABLE "rate_quotes" (
	"source" text NOT NULL,
	"base" text NOT NULL,
	"quote" text NOT NULL,
	"rate" numeric NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "rate_quotes_source_base_quote_pk" PRIMARY KEY("source","base","quote"),
	CONSTRAINT "rate_quotes_rate_ck" CHECK ("rate_quotes"."rate" > 0)
);
--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "rate_markup_percent" numeric;--> statement-breakpoint
ALTER TABLE "rates" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "rate_history_pair_idx" ON "rate_history" USING btree ("base","quote","id");--> statement-breakpoint
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_rate_markup_ck" CHECK ("merchants"."rate_markup_percent" IS NULL OR ("merchants"."rate_markup_percent" >= 0 AND "merchants"."rate_markup_percent" < 50));--> statement-breakpoint
-- The generic provider's rates become the quotes of a source named "provider" (issue 20): the rates table keeps operators' rates only.
INSERT INTO "rate_quotes" ("source", "base", "quote", "rate", "fetched_at") SELECT 'provider', "base", "quote", "rate", "updated_at" FROM "rates" WHERE "source" = 'provider';--> statement-breakpoint
DELETE FROM "rates" WHERE "source" = 'provider';
