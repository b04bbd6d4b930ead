CREATE TABLE "app_install_circuits" (
	"install_id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"state" text DEFAULT 'closed' NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"since" timestamp with time zone,
	"opened_at" timestamp with time zone,
	"trial_id" uuid,
	"trial_claimed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "app_install_circuits" ADD CONSTRAINT "app_install_circuits_install_id_app_installs_id_fk" FOREIGN KEY ("install_id") REFERENCES "public"."app_installs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "app_install_circuits_tenant_state_idx" ON "app_install_circuits" USING btree ("tenant_id","state");