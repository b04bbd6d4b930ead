// The count of a list's matches that paging answers (paging.ts): it stops at 100,000.
import { type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Queryable } from '../db/pool.ts';

export const COUNT_CAP = 100_000;

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
