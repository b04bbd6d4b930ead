// What the console's routes answer for a path, and with which headers. Pure but for the file check given.

/**
 * The policy allows the console's own files and nothing inline: no inline script or style, no eval, no
 * framing (clickjacking), no <base> rewriting, forms only to this origin, images also as data: URLs. The
 * browser may fetch from the console's origin and, with the OpenID Connect sign-in on, from the identity
 * provider's (its discovery document and token endpoint): `connectOrigins`.
 */
export function consoleCsp(connectOrigins: readonly string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ["connect-src 'self'", ...connectOrigins].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

export const CONSOLE_CSP = consoleCsp();

/** The headers of every answer under /console; `issuer` is the OpenID Connect sign-in's, when it is on. */
export function consoleHeadersFor(issuer: string | null) {
  return {
    'content-security-policy': consoleCsp(issuer === null ? [] : [new URL(issuer).origin]),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  } as const;
}

/** Names under assets/ carry a hash of their content: they never change. */
const HASHED = /^assets\//;
export const IMMUTABLE = 'public, max-age=31536000, immutable';

export function cacheControlOf(file: string): string {
  return HASHED.test(file) ? IMMUTABLE : 'no-cache';
}

/**
 * The file of the build a path under /console/ answers, or null for a 404:
 * - a path with `..`, a backslash or a NUL is never a file (and never a page either);
 * - a missing file under assets/ is a 404 (a stale page asking for an old hash must fail, not get HTML);
 * - an existing file is itself;
 * - anything else is a page of the console: index.html.
 */
export async function consoleFileOf(
  wanted: string,
  exists: (file: string) => Promise<boolean>,
): Promise<string | null> {
  const segments = wanted.split('/');
  if (segments.some((s) => s === '..' || s === '.') || /[\\\0]/.test(wanted)) return null;
  const file = segments.filter((s) => s !== '').join('/');
  if (file !== '' && (await exists(file))) return file;
  return HASHED.test(file) ? null : 'index.html';
}
