CREATE TABLE "crypto_pool_addresses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"network" text NOT NULL,
	"address" text NOT NULL,
	"last_assigned_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crypto_transactions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"network" text NOT NULL,
	"tx_hash" text NOT NULL,
	"address" text NOT NULL,
	"amount" numeric NOT NULL,
	"confirmations" integer,
	"order_id" text,
	"outcome" text NOT NULL,
	"reported_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crypto_xpubs" (
	"network" text PRIMARY KEY NOT NULL,
	"xpub" text NOT NULL,
	"next_index" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "orders_pending_amount_idx";--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "method" text DEFAULT 'fiat' NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "crypto_rate" numeric;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "derivation_index" integer;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "received_amount" numeric;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "credited_currency" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "credited_amount" numeric;--> statement-breakpoint
CREATE UNIQUE INDEX "crypto_pool_address_uq" ON "crypto_pool_addresses" USING btree ("network","address");--> statement-breakpoint
CREATE UNIQUE INDEX "crypto_tx_uq" ON "crypto_transactions" USING btree ("network","tx_hash");--> statement-breakpoint
CREATE INDEX "crypto_tx_order_idx" ON "crypto_transactions" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "orders_deposit_address_idx" ON "orders" USING btree ("pd_address") WHERE method = 'crypto';--> statement-breakpoint
CREATE INDEX "orders_pending_amount_idx" ON "orders" USING btree ("payable_amount") WHERE status = 'pending' AND method = 'fiat' AND currency = 'RUB';