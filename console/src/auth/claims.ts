// What the console reads from its token: who is signed in, for which tenant, with which roles, until when.
// The signature is the platform's to check (every API call does); the console only reads the claims to
// show the principal and to offer what its permissions allow. Pure.

export interface Principal {
  tenantId: string;
  subject: string;
  /** The display name (`name`, else `sub`). */
  name: string;
  kind: string;
  roles: string[];
  /** Permissions granted by name beside the roles'. */
  granted: string[];
  /** When the token expires (ms since the epoch), or null when it says not. */
  expiresAt: number | null;
}

const strings = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : null;

/** The payload of a compact JWT as JSON, or null when it is not one. */
export function payloadOf(token: string): Record<string, unknown> | null {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return null;
  try {
    const base64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const payload: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return payload !== null && typeof payload === 'object' && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The principal a token names, or null when its claims are not the platform's. */
export function principalOf(token: string): Principal | null {
  const payload = payloadOf(token);
  if (!payload || typeof payload.tenant !== 'string' || typeof payload.sub !== 'string') return null;
  const roles = payload.roles === undefined ? [] : strings(payload.roles);
  const granted = payload.permissions === undefined ? [] : strings(payload.permissions);
  if (!roles || !granted) return null;
  return {
    tenantId: payload.tenant,
    subject: payload.sub,
    name: typeof payload.name === 'string' && payload.name ? payload.name : payload.sub,
    kind: typeof payload.kind === 'string' ? payload.kind : 'human',
    roles,
    granted,
    expiresAt: typeof payload.exp === 'number' ? payload.exp * 1000 : null,
  };
}

/** Whether the token has expired at `now` (ms). */
export const hasExpired = (principal: Principal, now: number) =>
  principal.expiresAt !== null && principal.expiresAt <= now;
