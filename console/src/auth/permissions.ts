// What a principal may do, read the way the platform reads it (src/auth/permissions.ts): the permissions
// of its roles (the generated table in roles.ts) and those granted by name; an applicant holds none. The
// console offers only what this allows; the platform still decides every call. Pure.
import type { Principal } from './claims.ts';
import { PERMISSIONS, type Permission, ROLE_PERMISSIONS } from './roles.ts';

export type { Permission };

const isPermission = (name: string): name is Permission => (PERMISSIONS as readonly string[]).includes(name);

export function permissionsOf(principal: Pick<Principal, 'kind' | 'roles' | 'granted'>): Set<Permission> {
  const held = new Set<Permission>();
  if (principal.kind === 'applicant') return held;
  for (const role of principal.roles) {
    if (Object.hasOwn(ROLE_PERMISSIONS, role)) for (const p of ROLE_PERMISSIONS[role] ?? []) held.add(p);
  }
  for (const p of principal.granted) if (isPermission(p)) held.add(p);
  return held;
}

/** Whether `principal` holds `permission`. */
export const can = (principal: Pick<Principal, 'kind' | 'roles' | 'granted'>, permission: Permission) =>
  permissionsOf(principal).has(permission);
