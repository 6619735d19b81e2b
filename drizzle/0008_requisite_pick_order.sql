DROP INDEX "requisites_pick_idx";--> statement-breakpoint
CREATE INDEX "requisites_pick_idx" ON "requisites" USING btree ("currency","kind","last_assigned_at" NULLS FIRST,"id");