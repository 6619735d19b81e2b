CREATE TABLE "holder_invites" (
	"code_digest" text PRIMARY KEY NOT NULL,
	"holder_id" uuid NOT NULL,
	"login" text NOT NULL,
	"invited_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"totp_pending_sealed" text
);
--> statement-breakpoint
CREATE TABLE "holder_user_sessions" (
	"token_digest" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"csrf" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "holder_users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"holder_id" uuid NOT NULL,
	"login" text NOT NULL,
	"password_hash" text NOT NULL,
	"totp_sealed" text NOT NULL,
	"totp_last_step" bigint,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_login_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "requisites" DROP CONSTRAINT "requisites_paused_ck";--> statement-breakpoint
ALTER TABLE "holder_invites" ADD CONSTRAINT "holder_invites_holder_id_holders_id_fk" FOREIGN KEY ("holder_id") REFERENCES "public"."holders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "holder_user_sessions" ADD CONSTRAINT "holder_user_sessions_user_id_holder_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."holder_users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "holder_users" ADD CONSTRAINT "holder_users_holder_id_holders_id_fk" FOREIGN KEY ("holder_id") REFERENCES "public"."holders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "holder_user_sessions_user_idx" ON "holder_user_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "holder_users_login_uq" ON "holder_users" USING btree ("login");--> statement-breakpoint
CREATE INDEX "holder_users_holder_idx" ON "holder_users" USING btree ("holder_id");--> statement-breakpoint
ALTER TABLE "requisites" ADD CONSTRAINT "requisites_paused_ck" CHECK ("requisites"."paused_reason" IS NULL OR "requisites"."paused_reason" IN ('block', 'stale', 'liveness', 'holder', 'own'));