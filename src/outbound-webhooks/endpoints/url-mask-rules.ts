// An endpoint's URL as the audit trail shows it: its origin, path and query masked
// (`https://hooks.example.com/…`), so a token a tenant put in the path or query never reaches the trail.
// Pure.

export const MASKED = '…';

export function maskedUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return MASKED;
  }
  // Origin is scheme, host and port: no user name, password, path, query or fragment.
  if (url.origin === 'null') return MASKED;
  return `${url.origin}/${MASKED}`;
}
