CREATE TABLE "chain_watchers" (
	"chain" text PRIMARY KEY NOT NULL,
	"url" text,
	"api_key_sealed" text,
	"confirmations" integer,
	"token_contract" text,
	"poll_seconds" integer,
	"chain_id" bigint,
	"enabled" boolean,
	"cursor_height" bigint,
	"cursor_hash" text,
	"head_height" bigint,
	"head_hash" text,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"recent" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "crypto_transactions" DROP CONSTRAINT "crypto_transactions_outcome_ck";--> statement-breakpoint
ALTER TABLE "crypto_transactions" ADD COLUMN "asset" text;--> statement-breakpoint
ALTER TABLE "crypto_transactions" ADD COLUMN "block_height" bigint;--> statement-breakpoint
ALTER TABLE "crypto_transactions" ADD COLUMN "block_hash" text;--> statement-breakpoint
ALTER TABLE "crypto_transactions" ADD COLUMN "reorged_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "crypto_tx_awaiting_idx" ON "crypto_transactions" USING btree ("network") WHERE "crypto_transactions"."outcome" = 'awaiting';--> statement-breakpoint
ALTER TABLE "crypto_transactions" ADD CONSTRAINT "crypto_transactions_outcome_ck" CHECK ("crypto_transactions"."outcome" IN ('credited', 'partial', 'late', 'unmatched', 'ignored', 'awaiting', 'dropped'));