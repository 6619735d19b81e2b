ALTER TABLE "merchants" ADD COLUMN "display_name" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "logo_url" text;--> statement-breakpoint
ALTER TABLE "merchants" ADD COLUMN "return_url" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "return_url" text;