// Paging of lists: limit and offset (at most 100,000) in, items + total + totalIsEstimate out (the count
// stops at 100,000).

import { type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type TSchema, Type } from 'typebox';
import type { Queryable } from '../db/pool.ts';

export const COUNT_CAP = 100_000;
/** The deepest a list pages: where its count stops. A larger offset is refused as input (400). */
export const MAX_OFFSET = COUNT_CAP;

export function pageQuery(options: { maxLimit?: number; defaultLimit?: number } = {}) {
  const maximum = options.maxLimit ?? 100;
  const limit = options.defaultLimit ?? 50;
  return {
    limit: Type.Integer({
      minimum: 1,
      maximum,
      default: limit,
      description: `Items per page, 1 to ${maximum} (default ${limit})`,
    }),
    offset: Type.Integer({
      minimum: 0,
      maximum: MAX_OFFSET,
      default: 0,
      description: `Items to skip, 0 to ${MAX_OFFSET.toLocaleString('en-US')} (default 0)`,
    }),
  };
}

export function pageOf<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    total: Type.Integer({ description: 'Every match, ignoring paging; capped at 100,000.' }),
    totalIsEstimate: Type.Boolean({
      description: 'True when the count stopped at 100,000: at least total rows match.',
    }),
  });
}

export interface Page<T> {
  items: T[];
  total: number;
  totalIsEstimate: boolean;
}

/** Counts matching rows, reading at most COUNT_CAP + 1 of them. */
export async function countCapped(
  db: Queryable,
  table: PgTable,
  where: SQL | undefined,
): Promise<Omit<Page<never>, 'items'>> {
  const capped = db
    .select({ one: sql`1` })
    .from(table)
    .where(where)
    .limit(COUNT_CAP + 1)
    .as('capped');
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(capped);
  const n = row?.n ?? 0;
  return { total: Math.min(n, COUNT_CAP), totalIsEstimate: n > COUNT_CAP };
}
