// Ids are UUIDs: a text that is not one names nothing (an unknown id answers 404, never a query error on a
// uuid column). Any case, as PostgreSQL reads them.
import { randomBytes } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(text: string): boolean {
  return UUID.test(text);
}

/**
 * A version 7 UUID (RFC 9562): `ms` (epoch milliseconds) in its first 48 bits, then random bits — the
 * shape of the audit trail's public ids (audit_uuid_v7, migration 0019), for a writer that must know a
 * record's id before it is written.
 */
export function uuidV7(ms: number, random: Buffer = randomBytes(16)): string {
  const bytes = Buffer.from(random.subarray(0, 16));
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
