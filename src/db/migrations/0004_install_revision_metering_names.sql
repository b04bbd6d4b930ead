ALTER TABLE "app_install_changes" ADD COLUMN "install_revision" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "app_installs" ADD COLUMN "revision" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- An install's revision moves with what an install change is asked against, whoever writes it; a rename
-- or a circuit-settings save leaves it where it is.
CREATE FUNCTION "app_installs_move_revision"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.version_id, NEW.config, NEW.hosts, NEW.enabled, NEW.auto_upgrade)
     IS DISTINCT FROM (OLD.version_id, OLD.config, OLD.hosts, OLD.enabled, OLD.auto_upgrade) THEN
    NEW.revision := OLD.revision + 1;
  END IF;
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "app_installs_revision" BEFORE UPDATE ON "app_installs"
  FOR EACH ROW EXECUTE FUNCTION "app_installs_move_revision"();--> statement-breakpoint
-- Open changes asked against an install that has not moved since stay approvable (revision 0 both);
-- those whose install moved keep answering install_changed.
UPDATE "app_install_changes" AS c SET "install_revision" = -1
  FROM "app_installs" AS i
  WHERE i."id" = c."install_id" AND c."decision" IS NULL AND i."updated_at" <> c."install_updated_at";--> statement-breakpoint
-- Metering rows name their install as it is now, or, for a removed install, as it was last metered.
UPDATE "app_metering" AS m SET "install_name" = i."name"
  FROM "app_installs" AS i
  WHERE i."id" = m."install_id" AND m."install_name" <> i."name";--> statement-breakpoint
UPDATE "app_metering" AS m SET "install_name" = latest."install_name"
  FROM (
    SELECT DISTINCT ON ("install_id") "install_id", "install_name" FROM "app_metering"
    ORDER BY "install_id", "day" DESC
  ) AS latest
  WHERE latest."install_id" = m."install_id" AND m."install_name" <> latest."install_name"
    AND NOT EXISTS (SELECT 1 FROM "app_installs" AS i WHERE i."id" = m."install_id");
