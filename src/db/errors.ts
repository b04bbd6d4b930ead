/** PostgreSQL's error code of a query failure, looking through Drizzle's wrapper. */
export function pgErrorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

export const isUniqueViolation = (error: unknown) => pgErrorCode(error) === '23505';

/** Connection-level failures: no server, a dropped connection, a server shutting down or starting up. */
const UNAVAILABLE_NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;
// pg's own words: a connection ended, the pool could not get one, or a statement sent on a client whose
// connection failed earlier (a transaction's next statement after PostgreSQL stopped).
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * Whether a failure means the database (or the service a request reached) does not answer now, rather
 * than that the request was wrong: looks through wrappers (`cause`) and pg's AggregateError (`errors`).
 */
export function isUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (UNAVAILABLE_NETWORK.has(e.code) || UNAVAILABLE_SQLSTATE.test(e.code)))
    return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  const nested = Array.isArray(e.errors) ? e.errors : [];
  return [e.cause, ...nested].some((inner) => isUnavailable(inner, depth + 1));
}
