CREATE TABLE "bank_notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"device_id" uuid NOT NULL,
	"message_id" text NOT NULL,
	"requisite_id" uuid NOT NULL,
	"amount" numeric NOT NULL,
	"currency" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"text" text,
	"status" text NOT NULL,
	"reason" text,
	"order_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "requisite_offers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"requisite_id" uuid NOT NULL,
	"amount" numeric NOT NULL,
	"type" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"order_id" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "trader_devices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"token_digest" text NOT NULL,
	"requisite_ids" jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trader_devices_token_digest_unique" UNIQUE("token_digest")
);
--> statement-breakpoint
ALTER TABLE "bank_notifications" ADD CONSTRAINT "bank_notifications_device_id_trader_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."trader_devices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "requisite_offers" ADD CONSTRAINT "requisite_offers_requisite_id_requisites_id_fk" FOREIGN KEY ("requisite_id") REFERENCES "public"."requisites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bank_notifications_message_uq" ON "bank_notifications" USING btree ("device_id","message_id");--> statement-breakpoint
CREATE INDEX "bank_notifications_status_idx" ON "bank_notifications" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "requisite_offers_open_idx" ON "requisite_offers" USING btree ("expires_at") WHERE status = 'open';