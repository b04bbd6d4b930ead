// Roles and permissions (docs/auth.md "Roles and permissions"). Pure.
export const PERMISSIONS = [
  'apps:read',
  'apps:write',
  'apps:publish',
  'runs:context',
  'definitions:read',
  'definitions:write',
  'definitions:publish',
  'documents:read',
  'documents:write',
  'audit:read',
  'tenants:settings',
  'webhooks:read',
  'webhooks:write',
  'ops:read',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['admin', 'analyst'] as const;
export type RoleName = (typeof ROLES)[number];

const ROLE_PERMISSIONS: Record<RoleName, readonly Permission[]> = {
  admin: [
    'apps:read',
    'apps:write',
    'apps:publish',
    'webhooks:read',
    'webhooks:write',
    'audit:read',
    'runs:context',
    'tenants:settings',
    'definitions:read',
    'definitions:write',
    'definitions:publish',
    'documents:read',
    'documents:write',
  ],
  analyst: ['apps:read'],
};

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** What a principal holds: the union of its roles' permissions and the ones granted by name. Unknown names are ignored. */
export function effectivePermissions(roles: readonly string[], granted: readonly string[]): Set<Permission> {
  const held = new Set<Permission>();
  for (const role of roles) {
    // Own keys only: a role named like an Object.prototype member (constructor, toString) is unknown too.
    if (Object.hasOwn(ROLE_PERMISSIONS, role))
      for (const p of ROLE_PERMISSIONS[role as RoleName]) held.add(p);
  }
  for (const p of granted) if (isPermission(p)) held.add(p);
  return held;
}
