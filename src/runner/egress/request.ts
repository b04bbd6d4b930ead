// The JSON a module hands to http_request, checked strictly before anything else happens: a typo in a
// field name is refused rather than silently ignored. The shape is documented at the top of http.ts.
// Pure: no placeholder is filled here.

export type AuthSpec =
  | { type: 'basic' | 'digest'; username: string; password: string }
  | { type: 'bearer'; token: string };

export interface HttpRequestSpec {
  method: string;
  url: string;
  /** Lower-cased names, in the order given. */
  headers: Array<[string, string]>;
  body: { text: string } | { bytes: Uint8Array } | null;
  timeoutMs: number;
  auth: AuthSpec | null;
}

export type ParsedRequest = { ok: true; request: HttpRequestSpec } | { ok: false; error: string };

export const DEFAULT_TIMEOUT_MS = 10_000;
export const MAX_TIMEOUT_MS = 30_000;
const MAX_URL_LENGTH = 8192;
const MAX_HEADERS = 100;

export const METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]);

/**
 * Headers the host owns: the connection is pooled and kept alive per tenant, the body's framing is
 * computed, and Host must name the approved host the URL names (another Host could reach another site
 * behind the same address).
 */
export const HOST_OWNED_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'proxy-connection',
  'proxy-authorization',
]);

const FIELDS = new Set(['method', 'url', 'headers', 'body', 'bodyBase64', 'timeoutMs', 'auth']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseAuth(raw: unknown): AuthSpec | string {
  if (!isRecord(raw)) return 'auth must be an object';
  const type = raw.type;
  if (type === 'basic' || type === 'digest') {
    for (const key of Object.keys(raw)) {
      if (!['type', 'username', 'password'].includes(key))
        return `auth.${key} is not a field of ${type} auth`;
    }
    if (typeof raw.username !== 'string') return 'auth.username must be a string';
    if (typeof raw.password !== 'string') return 'auth.password must be a string';
    return { type, username: raw.username, password: raw.password };
  }
  if (type === 'bearer') {
    for (const key of Object.keys(raw)) {
      if (!['type', 'token'].includes(key)) return `auth.${key} is not a field of bearer auth`;
    }
    if (typeof raw.token !== 'string' || raw.token === '') return 'auth.token must be a non-empty string';
    return { type, token: raw.token };
  }
  return 'auth.type must be basic, digest or bearer';
}

function parseHeaders(raw: unknown, hasAuth: boolean): Array<[string, string]> | string {
  if (raw === undefined) return [];
  if (!isRecord(raw)) return 'headers must be an object of strings';
  const entries = Object.entries(raw);
  if (entries.length > MAX_HEADERS) return `at most ${MAX_HEADERS} headers may be sent`;
  const seen = new Set<string>();
  const headers: Array<[string, string]> = [];
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) return `header name ${JSON.stringify(name)} is not valid`;
    const lower = name.toLowerCase();
    if (seen.has(lower)) return `header ${lower} is given twice`;
    seen.add(lower);
    if (typeof value !== 'string') return `header ${lower} must be a string`;
    if (HOST_OWNED_HEADERS.has(lower)) return `header ${lower} is set by the host and may not be given`;
    if (lower === 'authorization' && hasAuth) return 'give either auth or an authorization header, not both';
    headers.push([lower, value]);
  }
  return headers;
}

/** Checks the module's request JSON; the error names the field at fault. */
export function parseHttpRequest(raw: unknown): ParsedRequest {
  const fail = (error: string): ParsedRequest => ({ ok: false, error });
  if (!isRecord(raw)) return fail('the request must be a JSON object');
  for (const key of Object.keys(raw)) if (!FIELDS.has(key)) return fail(`${key} is not a request field`);

  if (typeof raw.method !== 'string') return fail('method must be a string');
  const method = raw.method.toUpperCase();
  if (!METHODS.has(method)) return fail(`method must be one of ${[...METHODS].join(', ')}`);
  if (typeof raw.url !== 'string' || raw.url === '') return fail('url must be a non-empty string');
  if (raw.url.length > MAX_URL_LENGTH) return fail(`url must be at most ${MAX_URL_LENGTH} characters`);

  let auth: AuthSpec | null = null;
  if (raw.auth !== undefined) {
    const parsed = parseAuth(raw.auth);
    if (typeof parsed === 'string') return fail(parsed);
    auth = parsed;
  }
  const headers = parseHeaders(raw.headers, auth !== null);
  if (typeof headers === 'string') return fail(headers);

  let body: HttpRequestSpec['body'] = null;
  if (raw.body !== undefined && raw.bodyBase64 !== undefined) return fail('give either body or bodyBase64');
  if (raw.body !== undefined) {
    if (typeof raw.body !== 'string') return fail('body must be a string');
    body = { text: raw.body };
  } else if (raw.bodyBase64 !== undefined) {
    if (typeof raw.bodyBase64 !== 'string' || !BASE64.test(raw.bodyBase64)) {
      return fail('bodyBase64 must be base64 text');
    }
    body = { bytes: Buffer.from(raw.bodyBase64, 'base64') };
  }
  if (body !== null && method === 'HEAD') return fail('a HEAD request has no body');

  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (raw.timeoutMs !== undefined) {
    const t = raw.timeoutMs;
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 1 || t > MAX_TIMEOUT_MS) {
      return fail(`timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}`);
    }
    timeoutMs = t;
  }
  return { ok: true, request: { method, url: raw.url, headers, body, timeoutMs, auth } };
}
