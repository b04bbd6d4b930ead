// What the console's routes answer for a path, and with which headers. Pure but for the file check given.

/**
 * The policy allows the console's own files and nothing inline: no inline script or style, no eval, no
 * framing (clickjacking), no <base> rewriting, forms only to this origin, images also as data: URLs.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

export const CONSOLE_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

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
