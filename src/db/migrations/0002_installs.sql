CREATE TABLE "app_install_aliases" (
	"tenant_id" uuid NOT NULL,
	"install_id" uuid NOT NULL,
	"alias" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_install_aliases_tenant_alias" UNIQUE("tenant_id","alias")
);
--> statement-breakpoint
CREATE TABLE "app_install_secrets" (
	"install_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"sealed" "bytea" NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_install_secrets_pk" PRIMARY KEY("install_id","name")
);
--> statement-breakpoint
CREATE TABLE "app_installs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"app_name" text NOT NULL,
	"version_id" uuid NOT NULL,
	"auto_upgrade" text DEFAULT 'off' NOT NULL,
	"upgraded_from_version_id" uuid,
	"enabled" boolean NOT NULL,
	"config" jsonb NOT NULL,
	"hosts" jsonb NOT NULL,
	"circuit_failure_threshold" integer,
	"circuit_open_seconds" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "app_installs_tenant_name" UNIQUE("tenant_id","name")
);
--> statement-breakpoint
ALTER TABLE "app_install_aliases" ADD CONSTRAINT "app_install_aliases_install_id_app_installs_id_fk" FOREIGN KEY ("install_id") REFERENCES "public"."app_installs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_install_secrets" ADD CONSTRAINT "app_install_secrets_install_id_app_installs_id_fk" FOREIGN KEY ("install_id") REFERENCES "public"."app_installs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "app_install_aliases_install_idx" ON "app_install_aliases" USING btree ("install_id");--> statement-breakpoint
CREATE INDEX "app_installs_tenant_app_idx" ON "app_installs" USING btree ("tenant_id","app_name");