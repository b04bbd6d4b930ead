// One page of a list, read the way every paged list reads: the matching rows in the list's order, `limit`
// of them after `offset`, and the capped count of every match (page-count.ts).
import { getTableColumns, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Queryable } from '../db/pool.ts';
import { countCapped, type Page } from './page-count.ts';

export interface PagedListQuery<T extends PgTable, E extends Record<string, SQL>> {
  from: T;
  where: SQL | undefined;
  /** Newest first, as a rule, with the id last so that equal times keep one order across pages. */
  orderBy: readonly (PgColumn | SQL)[];
  limit: number;
  offset: number;
  /** Values read beside each row's columns (a notification's read flag), by name. */
  beside?: E;
}

/** A row of the list: the table's columns, and the values read beside them. */
export type PagedRow<T extends PgTable, E extends Record<string, SQL>> = T['$inferSelect'] & {
  [K in keyof E]: E[K]['_']['type'];
};

/** The page of `from`'s rows matching `where`, each answered as `view` makes it. */
export async function pagedList<T extends PgTable, V, E extends Record<string, SQL> = Record<never, SQL>>(
  db: Queryable,
  query: PagedListQuery<T, E>,
  view: (row: PagedRow<T, E>) => V,
): Promise<Page<V>> {
  const columns = query.beside ? { ...getTableColumns(query.from), ...query.beside } : undefined;
  const select = columns ? db.select(columns) : db.select();
  const rows = (await select
    .from(query.from as PgTable)
    .where(query.where)
    .orderBy(...query.orderBy)
    .limit(query.limit)
    .offset(query.offset)) as PagedRow<T, E>[];
  const counted = await countCapped(db, query.from, query.where);
  return { items: rows.map(view), ...counted };
}
