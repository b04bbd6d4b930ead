// Reading verified token claims into a principal (src/auth/claims.ts).
import { describe, expect, it } from 'vitest';
import { type Principal, principalFromClaims } from '../../src/auth/claims.ts';

const TENANT = '0b7a9a52-3c1f-4a8e-9d2b-5e6f7a8b9c0d';

const principal = (payload: Record<string, unknown>): Principal => {
  const result = principalFromClaims(payload);
  if ('problem' in result) throw new Error(`unexpected problem: ${result.problem}`);
  return result;
};
const problem = (payload: Record<string, unknown>): string => {
  const result = principalFromClaims(payload);
  if (!('problem' in result)) throw new Error('expected a problem');
  return result.problem;
};

describe('principalFromClaims', () => {
  it('reads every claim', () => {
    const read = principal({
      tenant: TENANT,
      sub: 'machine:etl',
      name: 'ETL job',
      kind: 'machine',
      roles: ['analyst'],
      permissions: ['audit:read'],
      iss: 'ignored',
    });
    expect(read).toEqual({
      tenantId: TENANT,
      subject: 'machine:etl',
      name: 'ETL job',
      kind: 'machine',
      roles: ['analyst'],
      permissions: new Set(['apps:read', 'audit:read']),
    });
  });

  it('defaults kind to human, name to sub and roles and permissions to none', () => {
    expect(principal({ tenant: TENANT, sub: 'user:ada' })).toEqual({
      tenantId: TENANT,
      subject: 'user:ada',
      name: 'user:ada',
      kind: 'human',
      roles: [],
      permissions: new Set(),
    });
    expect(principal({ tenant: TENANT, sub: 'user:ada', name: '' }).name).toBe('user:ada');
    expect(principal({ tenant: TENANT, sub: 'user:ada', name: 42 }).name).toBe('user:ada');
  });

  it('takes each of the three kinds', () => {
    for (const kind of ['human', 'machine', 'applicant']) {
      expect(principal({ tenant: TENANT, sub: 's', kind }).kind).toBe(kind);
    }
  });

  it('lower-cases the tenant id', () => {
    expect(principal({ tenant: TENANT.toUpperCase(), sub: 's' }).tenantId).toBe(TENANT);
  });

  it('derives permissions from roles and grants, ignoring unknown names', () => {
    const read = principal({
      tenant: TENANT,
      sub: 's',
      roles: ['admin', 'wizard'],
      permissions: ['ops:read', 'made:up'],
    });
    expect(read.roles).toEqual(['admin', 'wizard']);
    expect(read.permissions.has('tenants:settings')).toBe(true);
    expect(read.permissions.has('ops:read')).toBe(true);
    expect(read.permissions.has('made:up' as never)).toBe(false);
  });

  it('refuses a tenant that is not a uuid', () => {
    for (const tenant of [undefined, 'acme', `${TENANT}x`, 42, TENANT.replaceAll('-', '')]) {
      expect(problem({ tenant, sub: 's' })).toMatch(/tenant/);
    }
  });

  it('refuses a missing or empty sub', () => {
    expect(problem({ tenant: TENANT })).toMatch(/sub/);
    expect(problem({ tenant: TENANT, sub: '' })).toMatch(/sub/);
  });

  it('refuses a kind other than human, machine or applicant', () => {
    for (const kind of ['robot', 'Human', '', 1, ['human']]) {
      expect(problem({ tenant: TENANT, sub: 's', kind })).toBe(
        'claim kind must be human, machine or applicant',
      );
    }
  });

  it('refuses roles or permissions that are not arrays of strings', () => {
    for (const bad of [
      { roles: 'admin' },
      { roles: [1] },
      { permissions: 'apps:read' },
      { permissions: [null] },
    ]) {
      expect(problem({ tenant: TENANT, sub: 's', ...bad })).toMatch(/roles and permissions/);
    }
  });
});
