CREATE TABLE "receipts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"merchant_id" text NOT NULL,
	"source" text NOT NULL,
	"source_url" text,
	"content_type" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"storage_key" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"reviewed_by" text,
	"reviewed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "receipts" ADD CONSTRAINT "receipts_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "receipts_order_idx" ON "receipts" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE INDEX "receipts_status_idx" ON "receipts" USING btree ("status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "receipts_one_under_review_uq" ON "receipts" USING btree ("order_id") WHERE status = 'under_review';