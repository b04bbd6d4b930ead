// What a request's log line says of where it went (docs/operations.md "Logs"): the pattern of the route
// that took it, never the path as sent. Tenants use e-mail addresses and other applicant data as subject
// ids, and any path parameter or query string may carry such data. A request no route takes logs its path
// with every segment that is not a word of the API's own routes shown as `*`, and never its query.
import type { FastifyInstance } from 'fastify';

export const MASK = '*';

/** The fixed segments of a route pattern: `/subjects/:subjectId/documents` → subjects, documents. Pure. */
export function routeWords(pattern: string): string[] {
  return pattern.split('/').filter((segment) => /^[A-Za-z0-9._~-]+$/.test(segment));
}

/** The path of `url` without its query, each segment that is not one of `words` as `*`. Pure. */
export function maskedPath(url: string, words: ReadonlySet<string>): string {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  return path
    .split('/')
    .map((segment) => (segment === '' || words.has(segment) ? segment : MASK))
    .join('/');
}

/** The words of every route registered on `app` from now on (registered before its routes). */
export function collectRouteWords(app: FastifyInstance, words: Set<string>): void {
  app.addHook('onRoute', (route) => {
    for (const word of routeWords(route.url)) words.add(word);
  });
}
