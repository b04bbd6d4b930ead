// Paging and filters kept in the URL's search parameters, so every list is deep-linkable. Pure.

export interface PageBounds {
  /** Items per page when the URL says none. */
  defaultLimit: number;
  /** The API's largest page for this list. */
  maxLimit: number;
}

/** `limit` and `offset` as a list's API takes them, from the URL (names prefixed for a page with several lists). */
export function pageOf(
  params: URLSearchParams,
  bounds: PageBounds,
  prefix = '',
): { limit: number; offset: number } {
  const int = (name: string) => {
    const text = params.get(prefix ? `${prefix}.${name}` : name);
    return text !== null && /^\d{1,7}$/.test(text) ? Number(text) : null;
  };
  const limit = Math.min(Math.max(int('limit') ?? bounds.defaultLimit, 1), bounds.maxLimit);
  return { limit, offset: int('offset') ?? 0 };
}

/** The URL's parameters with `changes` applied: an empty value or null removes one; paging names prefixed. */
export function withParams(
  params: URLSearchParams,
  changes: Record<string, string | number | null>,
): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === '') next.delete(name);
    else next.set(name, String(value));
  }
  return next;
}
