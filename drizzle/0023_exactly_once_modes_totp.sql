DROP INDEX "webhook_subscriptions_merchant_idx";--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "operators" ADD COLUMN "totp_pending_sealed" text;--> statement-breakpoint
ALTER TABLE "merchant_invites" ADD COLUMN "totp_pending_sealed" text;--> statement-breakpoint
ALTER TABLE "merchant_users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Backfill (hand-written): every existing order credit or debit gets its once-only key. The first
-- journal of an (order, kind) takes `<kind>:<order>`; a later one (a double credit from before the key)
-- keeps its rows, keyed apart by its journal id, so the index can be built and nothing is lost.
WITH journals AS (
	SELECT "journal_id", "kind", "order_id",
		row_number() OVER (PARTITION BY "kind", "order_id" ORDER BY min("id")) AS "n"
	FROM "ledger_entries"
	WHERE "order_id" IS NOT NULL AND "kind" IN ('payin_credit', 'payout_debit')
	GROUP BY "journal_id", "kind", "order_id"
)
UPDATE "ledger_entries" AS "e"
SET "idempotency_key" = "j"."kind" || ':' || "j"."order_id"
	|| CASE WHEN "j"."n" > 1 THEN ':repeat:' || "j"."journal_id"::text ELSE '' END
FROM journals AS "j"
WHERE "e"."journal_id" = "j"."journal_id";--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_once_idx" ON "ledger_entries" USING btree ("idempotency_key","account");--> statement-breakpoint
CREATE INDEX "webhook_subscriptions_merchant_idx" ON "webhook_subscriptions" USING btree ("merchant_id","test");