// The footer of a paged list: where this page is in the whole, and links to the previous and next pages
// (links, so a page is a URL; the API's limit and offset through usePageParams).
import { Link } from 'react-router';
import type { PageParams } from './usePageParams.ts';

export interface PagedProps {
  page: PageParams;
  /** Items on this page. */
  shown: number;
  /** Every match, when the API counts them; without it, a full page means there may be more. */
  total?: number;
  totalIsEstimate?: boolean;
  /** What the list holds, for the navigation's label: "notifications". */
  noun: string;
}

export function Paged({ page, shown, total, totalIsEstimate, noun }: PagedProps) {
  const first = shown === 0 ? 0 : page.offset + 1;
  const last = page.offset + shown;
  const hasNext = total === undefined ? shown === page.limit : last < total;
  const hasPrevious = page.offset > 0;
  if (!hasNext && !hasPrevious && shown === total) return null;
  const of = total === undefined ? '' : ` of ${total.toLocaleString()}${totalIsEstimate ? '+' : ''}`;
  return (
    <nav className="paged" aria-label={`Pages of ${noun}`}>
      <span>
        {first}–{last}
        {of}
      </span>
      {hasPrevious ? (
        <Link to={{ search: page.searchFor(Math.max(page.offset - page.limit, 0)) }}>Previous</Link>
      ) : null}
      {hasNext ? <Link to={{ search: page.searchFor(page.offset + page.limit) }}>Next</Link> : null}
    </nav>
  );
}
