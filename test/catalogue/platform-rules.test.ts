// The pure rules of the operator's platform versions (src/catalogue/platform-rules.ts), table by table.
import { describe, expect, it } from 'vitest';
import type { VersionStatus } from '../../src/catalogue/catalogue-rules.ts';
import { moveRefusal, publishRefusal, restoredSource } from '../../src/catalogue/platform-rules.ts';
import type { Manifest } from '../../src/module/manifest.ts';

const versions = (...list: [string, VersionStatus][]) =>
  list.map(([version, status]) => ({ version, status }));

describe('publishRefusal', () => {
  it.each([
    ['a new app with --new-app', [], 0, true, null],
    ['a next version of an app', versions(['1.0.0', 'published']), 0, false, null],
    ['a next version beside withdrawn ones', versions(['1.0.0', 'withdrawn']), 0, false, null],
    ['a version that exists, published', versions(['1.2.0', 'published']), 0, false, 'conflict'],
    ['a version that exists, withdrawn', versions(['1.2.0', 'withdrawn']), 0, false, 'conflict'],
    ['a version that exists, whatever --new-app says', versions(['1.2.0', 'published']), 0, true, 'conflict'],
    ['a new app without --new-app (a typo)', [], 0, false, 'not_found'],
    ['--new-app for an app the platform has', versions(['1.0.0', 'withdrawn']), 0, true, 'conflict'],
    ['a new app under a tenant’s app name', [], 2, true, 'conflict'],
    [
      'a next version while a tenant has the name (the name was the platform’s first)',
      versions(['1.0.0', 'published']),
      1,
      false,
      null,
    ],
  ] as const)('%s', (_case, platformVersions, tenantsWithName, newApp, code) => {
    const refusal = publishRefusal({
      name: 'kyc',
      version: '1.2.0',
      platformVersions,
      tenantsWithName,
      newApp,
    });
    expect(refusal?.code ?? null).toBe(code);
  });

  it('names the status of the version that exists, and how many tenants have the name', () => {
    expect(
      publishRefusal({
        name: 'kyc',
        version: '1.2.0',
        platformVersions: versions(['1.2.0', 'withdrawn']),
        tenantsWithName: 0,
        newApp: false,
      }),
    ).toEqual({
      code: 'conflict',
      message: 'kyc@1.2.0 already exists (withdrawn): raise the version',
      details: { name: 'kyc', version: '1.2.0', status: 'withdrawn' },
    });
    expect(
      publishRefusal({
        name: 'kyc',
        version: '1.0.0',
        platformVersions: [],
        tenantsWithName: 3,
        newApp: true,
      }),
    ).toMatchObject({
      details: { tenants: 3 },
    });
  });
});

describe('moveRefusal', () => {
  it.each([
    ['withdraw', 'published', null],
    ['withdraw', 'withdrawn', 'the version is withdrawn, not published'],
    ['withdraw', 'uploaded', 'the version is uploaded, not published'],
    ['restore', 'withdrawn', null],
    ['restore', 'published', 'the version is published, not withdrawn'],
    ['restore', 'uploaded', 'the version is uploaded, not withdrawn'],
  ] as const)('%s a version %s', (move, status, message) => {
    const refusal = moveRefusal(move, status);
    expect(refusal).toEqual(message === null ? null : { code: 'conflict', message });
  });
});

describe('restoredSource', () => {
  const manifest = {
    name: 'kyc',
    version: '1.0.0',
    hosts: ['a.example'],
    memoryMiB: 64,
  } as unknown as Manifest;
  it.each([
    ['the running release carries the same manifest', { ...manifest }, 'release'],
    [
      'the same manifest, its keys in another order',
      { memoryMiB: 64, hosts: ['a.example'], version: '1.0.0', name: 'kyc' },
      'release',
    ],
    ['the running release carries another manifest', { ...manifest, hosts: ['b.example'] }, 'operator'],
    ['the running release does not carry it', null, 'operator'],
  ] as const)('%s: %s', (_case, inRelease, source) => {
    expect(restoredSource(manifest, inRelease as Manifest | null)).toBe(source);
  });
});
