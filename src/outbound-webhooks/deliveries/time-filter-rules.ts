// The deliveries listing's bounds on creation (docs/outbound-webhooks.md "Deliveries and retry"): the
// spec's `time` filter, an ISO 8601 interval `<start>/<end>` with either side open (`..` or left empty),
// or `from` and `to` as every record listing takes them (src/http/time-range.ts). Start inclusive, end
// exclusive. Pure.
import { type TimeRange, timeRangeOf } from '../../http/time-bounds.ts';

export type TimeFilter = TimeRange;

/** An RFC 3339 date-time, as the `date-time` format of the other parameters takes. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const OPEN = new Set(['', '..']);
const SHAPE = 'must be an interval <start>/<end> of ISO 8601 date-times, either side open (.. or empty)';

/** The calendar's day exists (Date would roll 31 February over into March). */
function realDay(text: string): boolean {
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d)).getUTCDate() === d;
}

function dateOf(text: string): Date | null | undefined {
  if (OPEN.has(text)) return undefined;
  if (!DATE_TIME.test(text) || !realDay(text)) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

function intervalOf(time: string): TimeFilter {
  const sides = time.split('/');
  if (sides.length !== 2) return { refused: { path: 'query.time', message: SHAPE } };
  const [from, to] = sides.map(dateOf);
  if (from === null || to === null || (from === undefined && to === undefined))
    return { refused: { path: 'query.time', message: SHAPE } };
  if (from && to && from >= to)
    return { refused: { path: 'query.time', message: 'its end must be after its start' } };
  return { bounds: { ...(from ? { from } : {}), ...(to ? { to } : {}) } };
}

/** The bounds a listing's query asks for: `time`, or `from` and `to`, never both spellings at once. */
export function timeFilterOf(query: { time?: string; from?: string; to?: string }): TimeFilter {
  if (query.time !== undefined) {
    if (query.from !== undefined || query.to !== undefined)
      return { refused: { path: 'query.time', message: 'give time, or from and to, not both' } };
    return intervalOf(query.time);
  }
  return timeRangeOf(query);
}
