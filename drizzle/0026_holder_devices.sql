-- The requisite holders' devices table is named for them (docs/architecture.md "Modules and the tables they own"): a rename
-- keeps every row, binding and event; the constraints follow the table's name.
ALTER TABLE "trader_devices" RENAME TO "holder_devices";--> statement-breakpoint
ALTER TABLE "holder_devices" RENAME CONSTRAINT "trader_devices_pkey" TO "holder_devices_pkey";--> statement-breakpoint
ALTER TABLE "holder_devices" RENAME CONSTRAINT "trader_devices_token_digest_unique" TO "holder_devices_token_digest_unique";--> statement-breakpoint
ALTER TABLE "holder_devices" RENAME CONSTRAINT "trader_devices_pairing_digest_unique" TO "holder_devices_pairing_digest_unique";--> statement-breakpoint
ALTER TABLE "bank_notifications" RENAME CONSTRAINT "bank_notifications_device_id_trader_devices_id_fk" TO "bank_notifications_device_id_holder_devices_id_fk";--> statement-breakpoint
ALTER TABLE "device_events" RENAME CONSTRAINT "device_events_device_id_trader_devices_id_fk" TO "device_events_device_id_holder_devices_id_fk";--> statement-breakpoint
ALTER TABLE "device_requisites" RENAME CONSTRAINT "device_requisites_device_id_trader_devices_id_fk" TO "device_requisites_device_id_holder_devices_id_fk";
