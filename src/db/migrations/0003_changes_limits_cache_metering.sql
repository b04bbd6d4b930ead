CREATE TABLE "app_callbacks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"install_id" uuid NOT NULL,
	"install_name" text NOT NULL,
	"version_id" uuid NOT NULL,
	"action" text NOT NULL,
	"external_id" text NOT NULL,
	"workflow_run_id" uuid,
	"step_id" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"output" jsonb,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "app_callbacks_install_external_id" UNIQUE("install_id","external_id")
);
--> statement-breakpoint
CREATE TABLE "app_metering" (
	"tenant_id" uuid NOT NULL,
	"install_id" uuid NOT NULL,
	"install_name" text NOT NULL,
	"app_name" text NOT NULL,
	"action" text NOT NULL,
	"day" text NOT NULL,
	"currency" text DEFAULT '' NOT NULL,
	"calls" bigint DEFAULT 0 NOT NULL,
	"http_requests" bigint DEFAULT 0 NOT NULL,
	"spend_micros" bigint DEFAULT 0 NOT NULL,
	"webhooks" bigint DEFAULT 0 NOT NULL,
	"handoffs" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "app_metering_pk" PRIMARY KEY("install_id","day","action","currency")
);
--> statement-breakpoint
CREATE TABLE "app_quota_refusals" (
	"tenant_id" uuid NOT NULL,
	"limit_key" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_quota_refusals_pk" PRIMARY KEY("tenant_id","limit_key","period_start")
);
--> statement-breakpoint
CREATE TABLE "app_tenant_quotas" (
	"tenant_id" uuid NOT NULL,
	"metric" text NOT NULL,
	"period" text NOT NULL,
	"max" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_tenant_quotas_pk" PRIMARY KEY("tenant_id","metric","period")
);
--> statement-breakpoint
CREATE TABLE "app_install_cache" (
	"install_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"sealed" "bytea" NOT NULL,
	"size_bytes" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"write_seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "app_install_cache_write_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	CONSTRAINT "app_install_cache_pk" PRIMARY KEY("install_id","name")
);
--> statement-breakpoint
CREATE TABLE "app_install_changes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"install_id" uuid,
	"install_name" text NOT NULL,
	"version_id" uuid NOT NULL,
	"config" jsonb NOT NULL,
	"enabled" boolean NOT NULL,
	"auto_upgrade" text NOT NULL,
	"hosts" jsonb NOT NULL,
	"hosts_added" jsonb NOT NULL,
	"origin" text NOT NULL,
	"needs_added" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"handles_added" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"new_install" boolean NOT NULL,
	"install_updated_at" timestamp with time zone NOT NULL,
	"approval_required" boolean NOT NULL,
	"four_eyes" boolean NOT NULL,
	"requested_by" text NOT NULL,
	"requested_by_name" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"comment" text,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"decision" text,
	"decision_comment" text
);
--> statement-breakpoint
CREATE TABLE "app_install_limits" (
	"install_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"currency" text,
	"prices" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"budgets" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "app_installs" ADD COLUMN "cache_generation" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "app_install_cache" ADD CONSTRAINT "app_install_cache_install_id_app_installs_id_fk" FOREIGN KEY ("install_id") REFERENCES "public"."app_installs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_install_changes" ADD CONSTRAINT "app_install_changes_install_id_app_installs_id_fk" FOREIGN KEY ("install_id") REFERENCES "public"."app_installs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_install_limits" ADD CONSTRAINT "app_install_limits_install_id_app_installs_id_fk" FOREIGN KEY ("install_id") REFERENCES "public"."app_installs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "app_callbacks_install_status_idx" ON "app_callbacks" USING btree ("install_id","status");--> statement-breakpoint
CREATE INDEX "app_callbacks_tenant_created_idx" ON "app_callbacks" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "app_metering_tenant_day_idx" ON "app_metering" USING btree ("tenant_id","day");--> statement-breakpoint
CREATE INDEX "app_install_cache_written_idx" ON "app_install_cache" USING btree ("install_id","write_seq");--> statement-breakpoint
CREATE UNIQUE INDEX "app_install_changes_one_open" ON "app_install_changes" USING btree ("install_id") WHERE "app_install_changes"."decision" is null;--> statement-breakpoint
CREATE INDEX "app_install_changes_tenant_idx" ON "app_install_changes" USING btree ("tenant_id","decision","requested_at");