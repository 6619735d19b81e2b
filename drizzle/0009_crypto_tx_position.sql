DROP INDEX "crypto_tx_uq";--> statement-breakpoint
ALTER TABLE "crypto_transactions" ADD COLUMN "position" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hashes recorded before normalisation: 64 hex characters (with or without 0x, any case) become the
-- stored form. Where one transaction was recorded several times in different spellings (the defect
-- this fixes), the first row keeps position 0 and the others get -1, -2, ...: no input position is
-- negative, so they stay visible to operators and never take a real transfer's key.
UPDATE "crypto_transactions" t SET "tx_hash" = r."norm", "position" = 1 - r."rank"
FROM (
  SELECT "id", lower(regexp_replace("tx_hash", '^0[xX]', '')) AS "norm",
    row_number() OVER (
      PARTITION BY "network", lower(regexp_replace("tx_hash", '^0[xX]', '')) ORDER BY "id"
    )::int AS "rank"
  FROM "crypto_transactions"
  WHERE "tx_hash" ~ '^(0[xX])?[0-9a-fA-F]{64}$'
) r
WHERE r."id" = t."id";--> statement-breakpoint
CREATE INDEX "orders_external_idx" ON "orders" USING btree ("external_id");--> statement-breakpoint
CREATE UNIQUE INDEX "crypto_tx_uq" ON "crypto_transactions" USING btree ("network","tx_hash","position");
