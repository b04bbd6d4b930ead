// Roles and permissions (src/auth/permissions.ts, docs/auth.md "Roles and permissions").
import { describe, expect, it } from 'vitest';
import { effectivePermissions, isPermission, PERMISSIONS, ROLES } from '../../src/auth/permissions.ts';

const sorted = (set: Set<string>) => [...set].sort();

describe('effectivePermissions', () => {
  it('gives an admin every apps:* and webhooks:* permission, and the foundation ones', () => {
    const held = effectivePermissions(['admin'], []);
    const appsAndWebhooks = PERMISSIONS.filter((p) => p.startsWith('apps:') || p.startsWith('webhooks:'));
    expect(appsAndWebhooks).toEqual(
      expect.arrayContaining(['apps:read', 'apps:write', 'apps:publish', 'webhooks:read', 'webhooks:write']),
    );
    for (const permission of appsAndWebhooks) expect(held.has(permission), permission).toBe(true);
    expect(sorted(held)).toEqual(
      [
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
      ].sort(),
    );
  });

  it('does not give an admin ops:read, which is granted only by name', () => {
    expect(effectivePermissions(['admin'], []).has('ops:read')).toBe(false);
    expect(effectivePermissions(['admin'], ['ops:read']).has('ops:read')).toBe(true);
  });

  it('gives an analyst only apps:read', () => {
    expect(sorted(effectivePermissions(['analyst'], []))).toEqual(['apps:read']);
  });

  it('adds permissions granted by name to the roles’ ones', () => {
    expect(sorted(effectivePermissions(['analyst'], ['tenants:settings']))).toEqual([
      'apps:read',
      'tenants:settings',
    ]);
    expect(sorted(effectivePermissions([], ['audit:read', 'audit:read']))).toEqual(['audit:read']);
  });

  it('gives nothing without roles or grants', () => {
    expect(effectivePermissions([], []).size).toBe(0);
  });

  it('ignores unknown role names, including names of Object.prototype members', () => {
    expect(effectivePermissions(['superuser', 'Admin', 'ADMIN'], []).size).toBe(0);
    expect(effectivePermissions(['constructor', 'toString', '__proto__', 'hasOwnProperty'], []).size).toBe(0);
    expect(sorted(effectivePermissions(['toString', 'analyst'], []))).toEqual(['apps:read']);
  });

  it('ignores unknown permission names', () => {
    expect(effectivePermissions([], ['apps:*', 'APPS:READ', 'apps:read ', 'root', '']).size).toBe(0);
    expect(sorted(effectivePermissions([], ['nope', 'apps:read']))).toEqual(['apps:read']);
  });

  it('unions several roles', () => {
    expect(effectivePermissions(['analyst', 'admin'], [])).toEqual(effectivePermissions(['admin'], []));
  });
});

describe('isPermission and the names', () => {
  it('knows exactly the listed permissions', () => {
    for (const permission of PERMISSIONS) expect(isPermission(permission)).toBe(true);
    for (const other of ['apps', 'apps:', ':read', 'apps:delete', 'constructor', ''])
      expect(isPermission(other)).toBe(false);
  });

  it('has the two roles of the spec', () => {
    expect([...ROLES]).toEqual(['admin', 'analyst']);
  });
});
