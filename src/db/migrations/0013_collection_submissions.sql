CREATE TABLE "collection_submissions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"subject_id" text NOT NULL,
	"workflow_run_id" uuid NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "collection_submissions_tenant_created_idx" ON "collection_submissions" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "collection_submissions_run_idx" ON "collection_submissions" USING btree ("workflow_run_id");