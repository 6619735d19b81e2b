CREATE TABLE "appeals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"receipt_id" uuid NOT NULL,
	"opened_by" text NOT NULL,
	"status" text NOT NULL,
	"deadline_at" timestamp with time zone NOT NULL,
	"reason" text,
	"resolved_by" text,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "appeals_status_ck" CHECK ("appeals"."status" IN ('open', 'accepted', 'rejected')),
	CONSTRAINT "appeals_opened_by_ck" CHECK ("appeals"."opened_by" IN ('payer', 'merchant'))
);
--> statement-breakpoint
ALTER TABLE "appeals" ADD CONSTRAINT "appeals_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "appeals_one_open_uq" ON "appeals" USING btree ("order_id") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "appeals_status_deadline_idx" ON "appeals" USING btree ("status","deadline_at");--> statement-breakpoint
CREATE INDEX "appeals_merchant_idx" ON "appeals" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "appeals_order_idx" ON "appeals" USING btree ("order_id","created_at");