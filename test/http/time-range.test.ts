// The from/to filter every record listing takes (src/http/time-bounds.ts): one row per sentence of the
// rule, and the conditions it puts on a column.
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/audit/tables.ts';
import { timeRangeOf, withinBounds } from '../../src/http/time-bounds.ts';

const A = '2030-04-01T00:00:00Z';
const B = '2030-04-01T02:00:00.500+02:00';
const AFTER = { refused: { path: 'query.to', message: 'must be after from' } };

describe('timeRangeOf', () => {
  const rows: [string, Parameters<typeof timeRangeOf>[0], ReturnType<typeof timeRangeOf>][] = [
    ['nothing asked: no bounds', {}, { bounds: {} }],
    ['from alone: a lower bound', { from: A }, { bounds: { from: new Date(A) } }],
    ['to alone: an upper bound', { to: A }, { bounds: { to: new Date(A) } }],
    [
      'both: from then to, compared as instants',
      { from: A, to: B },
      { bounds: { from: new Date(A), to: new Date(B) } },
    ],
    ['to equal to from: refused at to (the window would be empty)', { from: A, to: A }, AFTER],
    ['to before from: refused at to', { from: B, to: A }, AFTER],
    ['the same instant in another zone is no later', { from: A, to: '2030-04-01T02:00:00+02:00' }, AFTER],
  ];
  it.each(rows)('%s', (_name, query, expected) => {
    expect(timeRangeOf(query)).toEqual(expected);
  });
});

describe('withinBounds', () => {
  it('bounds the column from inclusive and to exclusive, nothing for an open side', () => {
    const sqlOf = (bounds: Parameters<typeof withinBounds>[1]) =>
      withinBounds(auditEvents.occurredAt, bounds).map((c) => new PgDialect().sqlToQuery(c).sql);
    expect(sqlOf({})).toEqual([]);
    expect(sqlOf({ from: new Date(A), to: new Date(B) })).toEqual([
      '"audit_events"."occurred_at" >= $1',
      '"audit_events"."occurred_at" < $1',
    ]);
    expect(sqlOf({ to: new Date(B) })).toEqual(['"audit_events"."occurred_at" < $1']);
  });
});
