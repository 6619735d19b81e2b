DROP INDEX "orders_merchant_external_uq";--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "mode" text DEFAULT 'live' NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "receipts" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "orders_merchant_external_uq" ON "orders" USING btree ("merchant_id","external_id","test");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_mode_ck" CHECK ("api_keys"."mode" IN ('live', 'test'));