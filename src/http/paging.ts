// Paging of lists: limit and offset (at most 100,000) in, items + total + totalIsEstimate out (the count
// stops at 100,000). The schemas are here; the count and the one paged read, which services use without
// a route, are in page-count.ts and paged-list.ts (without TypeBox, which costs a command half a second to load).

import { type TSchema, Type } from 'typebox';
import { COUNT_CAP } from './page-count.ts';

export { COUNT_CAP, countCapped, type Page } from './page-count.ts';
export { pagedList } from './paged-list.ts';

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
