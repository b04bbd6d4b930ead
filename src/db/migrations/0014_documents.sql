CREATE TABLE "subject_documents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"subject_id" text NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"checked_at" timestamp with time zone,
	"created_by" text NOT NULL,
	CONSTRAINT "subject_documents_status_check" CHECK ("subject_documents"."status" in ('pending', 'clean', 'rejected')),
	CONSTRAINT "subject_documents_reason_check" CHECK (("subject_documents"."status" = 'rejected') = ("subject_documents"."reason" is not null))
);
--> statement-breakpoint
CREATE INDEX "subject_documents_subject_idx" ON "subject_documents" USING btree ("tenant_id","subject_id","created_at");--> statement-breakpoint
CREATE INDEX "subject_documents_pending_idx" ON "subject_documents" USING btree ("created_at") WHERE "subject_documents"."status" = 'pending';