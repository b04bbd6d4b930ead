CREATE TABLE "app_webhook_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"install_id" uuid NOT NULL,
	"callback_id" uuid NOT NULL,
	"event_id" text NOT NULL,
	"status" text NOT NULL,
	"outcome" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_webhook_events_install_event_id" UNIQUE("install_id","event_id")
);
--> statement-breakpoint
ALTER TABLE "app_callbacks" ADD COLUMN "wait_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "app_callbacks" ADD COLUMN "resumed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "workflow_id" text;--> statement-breakpoint
CREATE INDEX "app_webhook_events_tenant_received_idx" ON "app_webhook_events" USING btree ("tenant_id","received_at");--> statement-breakpoint
CREATE INDEX "app_webhook_events_callback_idx" ON "app_webhook_events" USING btree ("callback_id");--> statement-breakpoint
CREATE UNIQUE INDEX "app_callbacks_run_step_idx" ON "app_callbacks" USING btree ("workflow_run_id","step_id") WHERE "app_callbacks"."workflow_run_id" is not null;--> statement-breakpoint
CREATE INDEX "app_callbacks_wait_until_idx" ON "app_callbacks" USING btree ("wait_until") WHERE "app_callbacks"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "app_callbacks_unresumed_idx" ON "app_callbacks" USING btree ("id") WHERE "app_callbacks"."status" <> 'pending' and "app_callbacks"."resumed_at" is null and "app_callbacks"."workflow_run_id" is not null;