CREATE TABLE "device_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"device_id" uuid NOT NULL,
	"transport_key" text NOT NULL,
	"app" text NOT NULL,
	"channel" text NOT NULL,
	"source" text NOT NULL,
	"title" text,
	"text" text,
	"received_at" timestamp with time zone NOT NULL,
	"bank_code" text,
	"parse" text,
	"kind" text,
	"rule_id" text,
	"fields" jsonb,
	"amount" numeric,
	"requisite_id" uuid,
	"status" text NOT NULL,
	"reason" text,
	"order_id" text,
	"paired_event_id" uuid,
	"resolved_by" text,
	"resolved_at" timestamp with time zone,
	"resolution" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "device_events_status_ck" CHECK ("device_events"."status" IN ('confirmed', 'review', 'assigned', 'dismissed', 'paired', 'ignored', 'block', 'alert')),
	CONSTRAINT "device_events_channel_ck" CHECK ("device_events"."channel" IN ('sms', 'push', 'system'))
);
--> statement-breakpoint
CREATE TABLE "device_requisites" (
	"requisite_id" uuid PRIMARY KEY NOT NULL,
	"device_id" uuid NOT NULL,
	"bound_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "banks" ADD COLUMN "sms_senders" jsonb;--> statement-breakpoint
ALTER TABLE "banks" ADD COLUMN "app_packages" jsonb;--> statement-breakpoint
ALTER TABLE "trader_devices" ADD COLUMN "signing_key_sealed" text;--> statement-breakpoint
ALTER TABLE "trader_devices" ADD COLUMN "native_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "trader_devices" ADD COLUMN "previous_secrets" jsonb;--> statement-breakpoint
ALTER TABLE "trader_devices" ADD COLUMN "revoked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "trader_devices" ADD COLUMN "last_seen_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "trader_devices" ADD COLUMN "last_heartbeat_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "trader_devices" ADD COLUMN "health" jsonb;--> statement-breakpoint
ALTER TABLE "trader_devices" ADD COLUMN "pairing_digest" text;--> statement-breakpoint
ALTER TABLE "trader_devices" ADD COLUMN "pairing_sealed" text;--> statement-breakpoint
ALTER TABLE "trader_devices" ADD COLUMN "pairing_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "requisites" ADD COLUMN "masks" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "requisites" ADD COLUMN "paused_reason" text;--> statement-breakpoint
ALTER TABLE "requisites" ADD COLUMN "paused_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "device_events" ADD CONSTRAINT "device_events_device_id_trader_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."trader_devices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_requisites" ADD CONSTRAINT "device_requisites_device_id_trader_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."trader_devices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "device_events_transport_uq" ON "device_events" USING btree ("device_id","transport_key");--> statement-breakpoint
CREATE UNIQUE INDEX "device_events_paid_order_uq" ON "device_events" USING btree ("order_id") WHERE "device_events"."status" IN ('confirmed', 'assigned');--> statement-breakpoint
CREATE INDEX "device_events_status_idx" ON "device_events" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "device_events_requisite_idx" ON "device_events" USING btree ("requisite_id","received_at");--> statement-breakpoint
CREATE INDEX "device_requisites_device_idx" ON "device_requisites" USING btree ("device_id");--> statement-breakpoint
ALTER TABLE "trader_devices" ADD CONSTRAINT "trader_devices_pairing_digest_unique" UNIQUE("pairing_digest");--> statement-breakpoint
ALTER TABLE "requisites" ADD CONSTRAINT "requisites_paused_ck" CHECK ("requisites"."paused_reason" IS NULL OR "requisites"."paused_reason" IN ('block', 'stale', 'liveness'));--> statement-breakpoint
-- Issue 19: a requisite's orders are confirmed by at most one device. Of the enabled devices that
-- listed a requisite, the one whose notification for it came last keeps it (or, with none, the
-- newest device); the others still list it in requisite_ids and GET /admin/devices shows it to
-- operators as not bound.
INSERT INTO "device_requisites" ("requisite_id", "device_id", "bound_at")
SELECT DISTINCT ON (b.requisite_id) b.requisite_id, b.device_id, now()
FROM (
  SELECT (r.value)::uuid AS requisite_id, d.id AS device_id, d.created_at AS device_created,
    (SELECT max(n.created_at) FROM "bank_notifications" n
      WHERE n.device_id = d.id AND n.requisite_id = (r.value)::uuid) AS last_used
  FROM "trader_devices" d, jsonb_array_elements_text(d.requisite_ids) AS r(value)
  WHERE d.enabled AND r.value ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
    AND EXISTS (SELECT 1 FROM "requisites" q WHERE q.id = (r.value)::uuid)
) b
ORDER BY b.requisite_id, b.last_used DESC NULLS LAST, b.device_created DESC, b.device_id
ON CONFLICT ("requisite_id") DO NOTHING;
