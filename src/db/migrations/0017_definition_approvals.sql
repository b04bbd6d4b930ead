CREATE TABLE "definition_approvals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"definition_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"version_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"origin" text NOT NULL,
	"four_eyes" boolean NOT NULL,
	"requested_by" text NOT NULL,
	"requested_by_name" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"comment" text
);
--> statement-breakpoint
ALTER TABLE "definition_approvals" ADD CONSTRAINT "definition_approvals_definition_id_definitions_id_fk" FOREIGN KEY ("definition_id") REFERENCES "public"."definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "definition_approvals" ADD CONSTRAINT "definition_approvals_version_id_definition_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."definition_versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "definition_approvals_one_open" ON "definition_approvals" USING btree ("definition_id") WHERE "definition_approvals"."status" = 'open';--> statement-breakpoint
CREATE INDEX "definition_approvals_tenant_idx" ON "definition_approvals" USING btree ("tenant_id","status","requested_at");