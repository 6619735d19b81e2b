ALTER TABLE "crypto_transactions" DROP CONSTRAINT "crypto_transactions_outcome_ck";--> statement-breakpoint
ALTER TABLE "chain_watchers" ADD COLUMN "genesis_hash" text;--> statement-breakpoint
ALTER TABLE "chain_watchers" ADD COLUMN "rps" integer;--> statement-breakpoint
ALTER TABLE "chain_watchers" ADD COLUMN "network" text;--> statement-breakpoint
ALTER TABLE "chain_watchers" ADD COLUMN "token_decimals" integer;--> statement-breakpoint
ALTER TABLE "chain_watchers" ADD COLUMN "verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chain_watchers" ADD COLUMN "verified_for" text;--> statement-breakpoint
ALTER TABLE "crypto_transactions" ADD COLUMN "review_reason" text;--> statement-breakpoint
ALTER TABLE "crypto_transactions" ADD COLUMN "vanished_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "crypto_transactions" ADD COLUMN "next_check_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "crypto_transactions" ADD CONSTRAINT "crypto_transactions_outcome_ck" CHECK ("crypto_transactions"."outcome" IN ('credited', 'partial', 'late', 'unmatched', 'ignored', 'awaiting', 'dropped', 'review'));