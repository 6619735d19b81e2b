CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"merchant_id" text NOT NULL,
	"key_digest" text NOT NULL,
	"key_ciphertext" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"actor" text NOT NULL,
	"ip" text,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "balances" (
	"merchant_id" text NOT NULL,
	"currency" text NOT NULL,
	"balance" numeric DEFAULT '0' NOT NULL,
	"reserved" numeric DEFAULT '0' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "balances_merchant_id_currency_pk" PRIMARY KEY("merchant_id","currency")
);
--> statement-breakpoint
CREATE TABLE "banks" (
	"code" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"sbp" boolean DEFAULT true NOT NULL,
	"card" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "banks_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "holds" (
	"order_id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"currency" text NOT NULL,
	"amount" numeric NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"journal_id" uuid NOT NULL,
	"account" text NOT NULL,
	"merchant_id" text,
	"currency" text NOT NULL,
	"amount" numeric NOT NULL,
	"kind" text NOT NULL,
	"order_id" text,
	"memo" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "merchants" (
	"id" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"currencies" jsonb NOT NULL,
	"payment_types" jsonb NOT NULL,
	"payin_fee_percent" numeric DEFAULT '0' NOT NULL,
	"payin_fee_percent_by_type" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"payout_fee_percent" numeric DEFAULT '0' NOT NULL,
	"allow_usdt" boolean DEFAULT false NOT NULL,
	"default_amount_up" integer DEFAULT 0 NOT NULL,
	"default_amount_down" integer DEFAULT 0 NOT NULL,
	"limits" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"order_ttl_seconds" integer DEFAULT 900 NOT NULL,
	"crypto_order_ttl_seconds" integer DEFAULT 3600 NOT NULL,
	"payin_rate_limit_per_second" integer DEFAULT 10 NOT NULL,
	"settlement" text DEFAULT 'fiat' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"order_id" text NOT NULL,
	"from_status" text,
	"to_status" text NOT NULL,
	"actor" text NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"external_id" text NOT NULL,
	"direction" text NOT NULL,
	"type" text NOT NULL,
	"currency" text NOT NULL,
	"amount" numeric NOT NULL,
	"payable_amount" numeric NOT NULL,
	"fee_percent" numeric NOT NULL,
	"fee" numeric NOT NULL,
	"amount_after_fee" numeric NOT NULL,
	"convert_to_usdt" boolean DEFAULT false NOT NULL,
	"exchange_rate" numeric,
	"usdt_amount" numeric,
	"usdt_amount_after_fee" numeric,
	"crypto_amount" numeric,
	"status" text NOT NULL,
	"status_reason" text,
	"requisite_id" uuid,
	"pd_address" text NOT NULL,
	"pd_bank" text NOT NULL,
	"pd_holder_name" text NOT NULL,
	"pd_emv" text,
	"success_callback_url" text,
	"client_id" text,
	"client_registered_at" timestamp with time zone,
	"client_orders_count" integer,
	"client_paid_count" integer,
	"comment" text,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "rates" (
	"base" text NOT NULL,
	"quote" text NOT NULL,
	"rate" numeric NOT NULL,
	"source" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rates_base_quote_pk" PRIMARY KEY("base","quote")
);
--> statement-breakpoint
CREATE TABLE "requisites" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"bank" text NOT NULL,
	"bank_code" text,
	"address" text NOT NULL,
	"holder_name" text NOT NULL,
	"currency" text NOT NULL,
	"min_amount" numeric,
	"max_amount" numeric,
	"daily_limit" numeric,
	"max_active_orders" integer,
	"emv" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"disabled_reason" text,
	"last_assigned_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "balances" ADD CONSTRAINT "balances_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "holds" ADD CONSTRAINT "holds_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_requisite_id_requisites_id_fk" FOREIGN KEY ("requisite_id") REFERENCES "public"."requisites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_digest_uq" ON "api_keys" USING btree ("key_digest");--> statement-breakpoint
CREATE INDEX "api_keys_merchant_idx" ON "api_keys" USING btree ("merchant_id");--> statement-breakpoint
CREATE INDEX "audit_target_idx" ON "audit_log" USING btree ("target_type","target_id");--> statement-breakpoint
CREATE INDEX "audit_created_idx" ON "audit_log" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "ledger_account_idx" ON "ledger_entries" USING btree ("account","currency");--> statement-breakpoint
CREATE INDEX "ledger_order_idx" ON "ledger_entries" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "ledger_journal_idx" ON "ledger_entries" USING btree ("journal_id");--> statement-breakpoint
CREATE INDEX "order_events_order_idx" ON "order_events" USING btree ("order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_merchant_external_uq" ON "orders" USING btree ("merchant_id","external_id");--> statement-breakpoint
CREATE INDEX "orders_merchant_created_idx" ON "orders" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "orders_pending_amount_idx" ON "orders" USING btree ("payable_amount") WHERE status = 'pending' AND direction = 'PAYIN' AND currency = 'RUB';--> statement-breakpoint
CREATE INDEX "orders_pending_expiry_idx" ON "orders" USING btree ("expires_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "orders_requisite_idx" ON "orders" USING btree ("requisite_id","status");--> statement-breakpoint
CREATE INDEX "orders_created_idx" ON "orders" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "requisites_pick_idx" ON "requisites" USING btree ("currency","kind","last_assigned_at");