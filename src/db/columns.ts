// Column types every domain's tables share: timestamps with time zone read as Dates, and raw bytes.
import { customType, timestamp } from 'drizzle-orm/pg-core';

/** timestamp with time zone, read and written as a Date. */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** bytea, read and written as a Buffer (sealed secrets and cached values). */
export const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/**
 * xid8, the 64-bit id of the transaction that wrote a row, read as a decimal string (it never wraps;
 * compared in SQL only). The outbound webhooks' trail reader orders by it (docs/outbound-webhooks.md).
 */
export const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => 'xid8' });
