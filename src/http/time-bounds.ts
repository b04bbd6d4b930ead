// The bounds of a listing's `from`/`to` filter (time-range.ts has its schema pieces): the pure rule and
// the SQL conditions, without TypeBox, so services a command loads (the audit trail) can use them.
import { gte, lt, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';

export interface TimeBounds {
  from?: Date;
  to?: Date;
}

export type TimeRange = { bounds: TimeBounds } | { refused: { path: string; message: string } };

/**
 * The bounds `from` and `to` ask for: `from` inclusive, `to` exclusive; refused when `to` is not after
 * `from`. Their form (date-time) is the schema's to check: here they are already valid date-times. Pure.
 */
export function timeRangeOf(query: { from?: string; to?: string }): TimeRange {
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to = query.to === undefined ? undefined : new Date(query.to);
  if (from && to && from >= to) return { refused: { path: 'query.to', message: 'must be after from' } };
  return { bounds: { ...(from ? { from } : {}), ...(to ? { to } : {}) } };
}

/** The conditions that keep `column` within the bounds (none for an open side). */
export function withinBounds(column: AnyPgColumn, bounds: TimeBounds): SQL[] {
  return [...(bounds.from ? [gte(column, bounds.from)] : []), ...(bounds.to ? [lt(column, bounds.to)] : [])];
}
