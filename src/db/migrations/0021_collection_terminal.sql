CREATE TABLE "collection_drop_off_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"submission_id" uuid NOT NULL,
	"step" text NOT NULL,
	"reported_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "collection_submissions" ADD COLUMN "link_requested_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "collection_drop_off_events_submission_step_idx" ON "collection_drop_off_events" USING btree ("submission_id","step");--> statement-breakpoint
CREATE INDEX "collection_drop_off_events_tenant_reported_idx" ON "collection_drop_off_events" USING btree ("tenant_id","reported_at");