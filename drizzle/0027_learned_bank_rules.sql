CREATE TABLE "learned_bank_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"bank_code" text NOT NULL,
	"channel" text NOT NULL,
	"direction" text DEFAULT 'credit' NOT NULL,
	"pattern" text NOT NULL,
	"examples" jsonb NOT NULL,
	"status" text DEFAULT 'proposed' NOT NULL,
	"proposed_by" text NOT NULL,
	"proposed_at" timestamp with time zone NOT NULL,
	"enabled_by" text,
	"enabled_at" timestamp with time zone,
	"disabled_by" text,
	"disabled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "learned_bank_rules_pattern_length" CHECK (length("learned_bank_rules"."pattern") <= 2000),
	CONSTRAINT "learned_bank_rules_status_ck" CHECK ("learned_bank_rules"."status" IN ('proposed', 'active', 'off')),
	CONSTRAINT "learned_bank_rules_channel_ck" CHECK ("learned_bank_rules"."channel" IN ('sms', 'push')),
	CONSTRAINT "learned_bank_rules_direction_ck" CHECK ("learned_bank_rules"."direction" = 'credit')
);
--> statement-breakpoint
CREATE INDEX "learned_bank_rules_status_idx" ON "learned_bank_rules" USING btree ("status","bank_code");