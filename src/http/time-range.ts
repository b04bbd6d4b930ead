// The `from`/`to` filter every record listing takes (docs/api-conventions.md "Time filters"): two
// RFC 3339 date-times on one time column, `from` inclusive, `to` exclusive, `to` after `from`. The
// schema pieces and the route's reading here; the rule and the SQL conditions in time-bounds.ts.
import { Type } from 'typebox';
import { validationError } from './errors.ts';
import { type TimeBounds, timeRangeOf } from './time-bounds.ts';

export { type TimeBounds, type TimeRange, timeRangeOf, withinBounds } from './time-bounds.ts';

/** The query's `from` and `to`, described as bounds on `column` (createdAt, occurredAt…). */
export function timeRangeQuery(column: string) {
  return {
    from: Type.Optional(
      Type.String({ format: 'date-time', description: `Inclusive lower bound on ${column}` }),
    ),
    to: Type.Optional(
      Type.String({ format: 'date-time', description: `Exclusive upper bound on ${column}` }),
    ),
  };
}

/** timeRangeOf for a route: the bounds, or 400 validation_error naming the parameter at fault. */
export function timeBoundsOf(query: { from?: string; to?: string }): TimeBounds {
  const range = timeRangeOf(query);
  if ('refused' in range) throw validationError([range.refused]);
  return range.bounds;
}
