CREATE UNIQUE INDEX "orders_external_merchant_uq" ON "orders" USING btree ("external_id","merchant_id","test");--> statement-breakpoint
DROP INDEX "orders_merchant_external_uq";--> statement-breakpoint
DROP INDEX "orders_external_idx";
