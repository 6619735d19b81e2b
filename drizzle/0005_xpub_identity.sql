ALTER TABLE "crypto_xpubs" DROP CONSTRAINT "crypto_xpubs_pkey";--> statement-breakpoint
ALTER TABLE "crypto_xpubs" ADD COLUMN "key_id" text;--> statement-breakpoint
UPDATE "crypto_xpubs" SET "key_id" = "xpub" WHERE "key_id" IS NULL;--> statement-breakpoint
ALTER TABLE "crypto_xpubs" ALTER COLUMN "key_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "crypto_xpubs" ADD COLUMN "active" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "crypto_xpubs" ADD CONSTRAINT "crypto_xpubs_network_key_id_pk" PRIMARY KEY("network","key_id");--> statement-breakpoint
CREATE UNIQUE INDEX "crypto_xpubs_one_active_uq" ON "crypto_xpubs" USING btree ("network") WHERE active;
