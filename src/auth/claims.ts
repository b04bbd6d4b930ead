// The token claims the platform reads (documented in docs/auth.md). Pure.
import type { JWTPayload } from 'jose';
import { isUuid } from '../uuid.ts';
import { effectivePermissions, type Permission } from './permissions.ts';

export const PRINCIPAL_KINDS = ['human', 'machine', 'applicant'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

export interface PlatformClaims {
  /** Tenant id (uuid). */
  tenant: string;
  sub: string;
  name?: string;
  kind?: PrincipalKind;
  roles?: string[];
  permissions?: string[];
}

export interface Principal {
  tenantId: string;
  subject: string;
  name: string;
  kind: PrincipalKind;
  roles: string[];
  permissions: Set<Permission>;
}

const stringArray = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : null;

/** Reads a verified payload into a principal, or says which claim is wrong. */
export function principalFromClaims(payload: JWTPayload): Principal | { problem: string } {
  const tenant = payload.tenant;
  if (typeof tenant !== 'string' || !isUuid(tenant)) return { problem: 'claim tenant must be a tenant id' };
  if (typeof payload.sub !== 'string' || payload.sub.length === 0)
    return { problem: 'claim sub is required' };
  const kind = payload.kind ?? 'human';
  if (typeof kind !== 'string' || !(PRINCIPAL_KINDS as readonly string[]).includes(kind)) {
    return { problem: 'claim kind must be human, machine or applicant' };
  }
  const roles = payload.roles === undefined ? [] : stringArray(payload.roles);
  const granted = payload.permissions === undefined ? [] : stringArray(payload.permissions);
  if (!roles || !granted) return { problem: 'claims roles and permissions must be arrays of strings' };
  const name = typeof payload.name === 'string' && payload.name ? payload.name : payload.sub;
  return {
    tenantId: tenant.toLowerCase(),
    subject: payload.sub,
    name,
    kind: kind as PrincipalKind,
    roles,
    permissions: effectivePermissions(roles, granted),
  };
}
