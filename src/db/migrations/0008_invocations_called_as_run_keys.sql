CREATE TABLE "workflow_run_keys" (
	"tenant_id" uuid NOT NULL,
	"key" text NOT NULL,
	"request_digest" text NOT NULL,
	"run_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "workflow_run_keys_pk" PRIMARY KEY("tenant_id","key")
);
--> statement-breakpoint
ALTER TABLE "app_invocations" ADD COLUMN "called_as" text;--> statement-breakpoint
ALTER TABLE "workflow_run_keys" ADD CONSTRAINT "workflow_run_keys_run_id_workflow_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."workflow_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "app_invocations_tenant_called_as_created_idx" ON "app_invocations" USING btree ("tenant_id","called_as","created_at") WHERE "app_invocations"."called_as" is not null;