// A list's paging and filters in the URL: `const page = usePageParams({ defaultLimit: 20, maxLimit: 100 })`,
// then `api.GET('/runs', { params: { query: { limit: page.limit, offset: page.offset, status: page.filter('status') } } })`.
// A filter's change goes back to the first page. With `prefix`, a page holds several lists
// (`notifications.limit`, `notifications.offset`).
import { useSearchParams } from 'react-router';
import { type PageBounds, pageOf, withParams } from './page-params.ts';

export interface PageParams {
  limit: number;
  offset: number;
  prefix: string;
  /** The search a link to another offset of this list goes to (`?…`). */
  searchFor(offset: number): string;
  /** A filter's value from the URL, or undefined. */
  filter(name: string): string | undefined;
  /** Sets (or with null clears) filters, back to the first page. */
  setFilters(changes: Record<string, string | null>): void;
}

export function usePageParams(bounds: PageBounds & { prefix?: string }): PageParams {
  const [params, setParams] = useSearchParams();
  const prefix = bounds.prefix ?? '';
  const name = (part: string) => (prefix ? `${prefix}.${part}` : part);
  const { limit, offset } = pageOf(params, bounds, prefix);
  return {
    limit,
    offset,
    prefix,
    searchFor: (to) => `?${withParams(params, { [name('offset')]: to > 0 ? to : null })}`,
    filter: (filterName) => params.get(filterName) ?? undefined,
    setFilters: (changes) => setParams(withParams(params, { ...changes, [name('offset')]: null })),
  };
}
