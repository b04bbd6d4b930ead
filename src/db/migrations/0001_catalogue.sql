CREATE TABLE "app_blocks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sha256" text,
	"publisher_tenant_id" uuid,
	"publisher" text,
	"app_name" text,
	"reason" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lifted_by" text,
	"lifted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "app_publish_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"version_id" uuid NOT NULL,
	"status" text NOT NULL,
	"four_eyes" boolean NOT NULL,
	"requested_by" text NOT NULL,
	"requested_by_name" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"comment" text
);
--> statement-breakpoint
CREATE TABLE "app_reviews" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"version_id" uuid NOT NULL,
	"status" text NOT NULL,
	"requested_by" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"comment" text
);
--> statement-breakpoint
CREATE TABLE "app_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"publisher" text NOT NULL,
	"tenant_id" uuid,
	"platform_source" text,
	"name" text NOT NULL,
	"version" text NOT NULL,
	"status" text NOT NULL,
	"sha256" text NOT NULL,
	"size_bytes" bigint NOT NULL,
	"manifest" jsonb NOT NULL,
	"provenance" jsonb,
	"uploaded_by" text,
	"withdrawn_by_operator" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone,
	"withdrawn_at" timestamp with time zone,
	CONSTRAINT "app_versions_publisher_name_version" UNIQUE NULLS NOT DISTINCT("tenant_id","name","version")
);
--> statement-breakpoint
CREATE TABLE "notification_reads" (
	"notification_id" uuid NOT NULL,
	"principal" text NOT NULL,
	"read_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_reads_notification_id_principal_pk" PRIMARY KEY("notification_id","principal")
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"audience_permission" text,
	"recipient" text,
	"resource_type" text NOT NULL,
	"resource_id" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "app_review" text DEFAULT 'off' NOT NULL;--> statement-breakpoint
CREATE INDEX "app_blocks_sha256_idx" ON "app_blocks" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "app_blocks_app_idx" ON "app_blocks" USING btree ("app_name");--> statement-breakpoint
CREATE UNIQUE INDEX "app_publish_requests_one_open" ON "app_publish_requests" USING btree ("version_id") WHERE "app_publish_requests"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "app_publish_requests_tenant_idx" ON "app_publish_requests" USING btree ("tenant_id","status","requested_at");--> statement-breakpoint
CREATE UNIQUE INDEX "app_reviews_one_pending" ON "app_reviews" USING btree ("version_id") WHERE "app_reviews"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "app_reviews_version_idx" ON "app_reviews" USING btree ("version_id","requested_at");--> statement-breakpoint
CREATE INDEX "app_versions_name_idx" ON "app_versions" USING btree ("name");--> statement-breakpoint
CREATE INDEX "app_versions_sha256_idx" ON "app_versions" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "notifications_tenant_idx" ON "notifications" USING btree ("tenant_id","created_at");