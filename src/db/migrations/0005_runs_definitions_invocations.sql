CREATE TABLE "app_invocations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"install_id" uuid NOT NULL,
	"install_name" text NOT NULL,
	"version_id" uuid NOT NULL,
	"app_name" text NOT NULL,
	"version" text NOT NULL,
	"action" text NOT NULL,
	"workflow_run_id" uuid,
	"step_id" text,
	"rule_set_key" text,
	"rule_key" text,
	"subject_id" text,
	"idempotency_key" text,
	"attempt" integer NOT NULL,
	"input" jsonb,
	"output" jsonb,
	"status" text NOT NULL,
	"error" jsonb,
	"duration_ms" integer NOT NULL,
	"usage" jsonb NOT NULL,
	"fallback_of" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "definition_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"definition_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"body" jsonb NOT NULL,
	"install_names" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"published_at" timestamp with time zone,
	"published_by" text,
	CONSTRAINT "definition_versions_definition_version" UNIQUE("definition_id","version")
);
--> statement-breakpoint
CREATE TABLE "definitions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	CONSTRAINT "definitions_tenant_kind_key" UNIQUE("tenant_id","kind","key")
);
--> statement-breakpoint
CREATE TABLE "workflow_run_steps" (
	"run_id" uuid NOT NULL,
	"step_id" text NOT NULL,
	"position" integer NOT NULL,
	"type" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" jsonb,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	CONSTRAINT "workflow_run_steps_pk" PRIMARY KEY("run_id","step_id")
);
--> statement-breakpoint
CREATE TABLE "workflow_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"definition_id" uuid NOT NULL,
	"definition_version_id" uuid NOT NULL,
	"workflow_key" text NOT NULL,
	"version" integer NOT NULL,
	"subject_id" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"context" jsonb NOT NULL,
	"error" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "definition_versions" ADD CONSTRAINT "definition_versions_definition_id_definitions_id_fk" FOREIGN KEY ("definition_id") REFERENCES "public"."definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_run_steps" ADD CONSTRAINT "workflow_run_steps_run_id_workflow_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."workflow_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "app_invocations_tenant_created_idx" ON "app_invocations" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "app_invocations_tenant_name_created_idx" ON "app_invocations" USING btree ("tenant_id","install_name","created_at");--> statement-breakpoint
CREATE INDEX "app_invocations_install_created_idx" ON "app_invocations" USING btree ("install_id","created_at");--> statement-breakpoint
CREATE INDEX "app_invocations_run_idx" ON "app_invocations" USING btree ("workflow_run_id");--> statement-breakpoint
CREATE INDEX "definition_versions_install_names_idx" ON "definition_versions" USING gin ("install_names");--> statement-breakpoint
CREATE INDEX "definition_versions_tenant_status_idx" ON "definition_versions" USING btree ("tenant_id","status");--> statement-breakpoint
CREATE INDEX "workflow_runs_tenant_created_idx" ON "workflow_runs" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "workflow_runs_tenant_status_idx" ON "workflow_runs" USING btree ("tenant_id","status");