-- Audit ids that say nothing across tenants (docs/tenants-and-audit.md "Ids"): the trail's bigserial id
-- is one sequence for every tenant, so answers carry public_id instead, a version 7 UUID: 48 bits of Unix
-- milliseconds, the version and variant, and random bits (PostgreSQL 17 has no uuidv7()). The bytes of a
-- random (version 4) UUID with the time written over the first six and the version nibble made 7
-- (bits 52 and 53 of 0100 set: 0111); its variant bits are already 10.
CREATE FUNCTION audit_uuid_v7(at timestamptz) RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
        PLACING substring(int8send(floor(extract(epoch FROM at) * 1000)::bigint) FROM 3)
        FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;--> statement-breakpoint
ALTER TABLE "audit_events" ADD COLUMN "public_id" uuid;--> statement-breakpoint
-- Rows written before: their time is occurred_at, so their ids sort as they were written (to the ms).
UPDATE "audit_events" SET "public_id" = audit_uuid_v7("occurred_at");--> statement-breakpoint
ALTER TABLE "audit_events" ALTER COLUMN "public_id" SET DEFAULT audit_uuid_v7(clock_timestamp());--> statement-breakpoint
ALTER TABLE "audit_events" ALTER COLUMN "public_id" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_public_id_idx" ON "audit_events" USING btree ("public_id");
