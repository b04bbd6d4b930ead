// The token a sign-in link carries in its fragment (`#token=<jwt>`; `platform console` prints such links).
// Pure.

/** The token of a location's fragment, or null when it holds none that looks like a JWT. */
export function tokenFromFragment(hash: string): string | null {
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  return token && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token) ? token : null;
}
