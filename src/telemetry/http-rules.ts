// What a request's span is called and which requests have none (docs/telemetry.md "Traces"). Pure.

/** Probes polled every few seconds: a span each would drown the traces that matter. */
export const UNTRACED_PATHS: readonly string[] = ['/health', '/health/ready', '/healthz', '/metrics'];

/** True for a health or metrics path, whatever its query or trailing slash. */
export function isUntracedPath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return UNTRACED_PATHS.includes(trimmed);
}

/** The route pattern a request matched (`/workflow-runs/:id`); null when none did (a 404 of the router). */
export function httpRouteOf(pattern: string | undefined): string | null {
  // Fastify's catch-all (the not-found handler) names no route of ours.
  return pattern && pattern !== '*' && pattern !== '/*' ? pattern : null;
}

/** `<METHOD> <route pattern>`, or the method alone without a route (never the path: it holds ids). */
export function serverSpanName(method: string, route: string | null): string {
  return route ? `${method} ${route}` : method;
}
