DROP INDEX "workflow_runs_open_idx";--> statement-breakpoint
CREATE INDEX "workflow_runs_running_idx" ON "workflow_runs" USING btree ("id") WHERE "workflow_runs"."status" = 'running';