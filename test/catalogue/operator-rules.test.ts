// The pure rules of the operator's catalogue commands (src/catalogue/operator-rules.ts), as tables.

import { describe, expect, it } from 'vitest';
import {
  type BlockTargetRow,
  covers,
  isUuid,
  provenanceMatches,
  rollbackCandidates,
  sameTarget,
  scopeOf,
  signerOf,
} from '../../src/catalogue/operator-rules.ts';
import { type ProvenanceView, provenanceView, RELEASE_PROVENANCE } from '../../src/provenance/index.ts';

const T1 = '11111111-1111-4111-8111-111111111111';
const T2 = '22222222-2222-4222-8222-222222222222';
const HASH = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);

const byHash = (sha256: string): BlockTargetRow => ({
  sha256,
  publisher: null,
  publisherTenantId: null,
  appName: null,
});
const byApp = (
  publisher: 'platform' | 'tenant',
  tenantId: string | null,
  appName: string,
): BlockTargetRow => ({
  sha256: null,
  publisher,
  publisherTenantId: tenantId,
  appName,
});

describe('scopeOf', () => {
  it.each([
    [byHash(HASH), 'module'],
    [byApp('tenant', T1, 'kyc'), 'app'],
    [byApp('platform', null, 'kyc'), 'app'],
  ])('%j is %s', (block, scope) => expect(scopeOf(block)).toBe(scope));
});

describe('sameTarget', () => {
  it.each([
    [byHash(HASH), byHash(HASH), true],
    [byHash(HASH), byHash(OTHER), false],
    [byApp('tenant', T1, 'kyc'), byApp('tenant', T1, 'kyc'), true],
    [byApp('tenant', T1, 'kyc'), byApp('tenant', T2, 'kyc'), false],
    [byApp('tenant', T1, 'kyc'), byApp('tenant', T1, 'aml'), false],
    [byApp('platform', null, 'kyc'), byApp('tenant', T1, 'kyc'), false],
    [byApp('platform', null, 'kyc'), byApp('platform', null, 'kyc'), true],
    [byHash(HASH), byApp('platform', null, 'kyc'), false],
  ])('%j and %j: %s', (a, b, same) => expect(sameTarget(a, b)).toBe(same));
});

describe('covers', () => {
  const tenantVersion = { sha256: HASH, publisher: 'tenant' as const, tenantId: T1, name: 'kyc' };
  const platformVersion = { sha256: HASH, publisher: 'platform' as const, tenantId: null, name: 'kyc' };
  it.each([
    [byHash(HASH), tenantVersion, true],
    [byHash(HASH), platformVersion, true],
    [byHash(OTHER), tenantVersion, false],
    [byApp('tenant', T1, 'kyc'), tenantVersion, true],
    [byApp('tenant', T2, 'kyc'), tenantVersion, false],
    [byApp('tenant', T1, 'aml'), tenantVersion, false],
    [byApp('platform', null, 'kyc'), tenantVersion, false],
    [byApp('platform', null, 'kyc'), platformVersion, true],
    [byApp('tenant', T1, 'kyc'), platformVersion, false],
  ])('%j over %j: %s', (block, version, covered) => expect(covers(block, version)).toBe(covered));
});

const shown = (signer: ProvenanceView['signer'], trustedSigner: string | null): ProvenanceView => ({
  kind: 'signature',
  signer,
  source: null,
  transparencyLog: null,
  signedAt: '2026-11-26T10:00:00.000Z',
  trusted: trustedSigner !== null,
  trustedSigner,
});
const keyless = {
  kind: 'keyless',
  issuer: 'https://token.actions.githubusercontent.com',
  identity: 'https://github.com/acme/kyc/.github/workflows/release.yml@refs/heads/main',
} as const;
const key = { kind: 'key', keyId: 'sha256:ab12' } as const;
/** A release version's, as the view shows it (provenanceView of RELEASE_PROVENANCE). */
const release = provenanceView(RELEASE_PROVENANCE, []) as ProvenanceView;

describe('signerOf', () => {
  it.each([
    [null, null],
    [shown(keyless, 'Acme CI'), 'Acme CI'],
    [shown(key, 'release key'), 'release key'],
    [shown(keyless, null), `${keyless.identity} (${keyless.issuer})`],
    [shown(key, null), 'sha256:ab12'],
    [release, 'platform'],
  ])('%j: %s', (provenance, signer) => expect(signerOf(provenance)).toBe(signer));
});

describe('provenanceMatches', () => {
  const trusted = shown(keyless, 'ci');
  const untrusted = shown(key, null);
  it.each([
    [null, {}, true],
    [trusted, {}, true],
    [null, { unsigned: true }, true],
    [trusted, { unsigned: true }, false],
    [null, { untrusted: true }, false],
    [trusted, { untrusted: true }, false],
    [untrusted, { untrusted: true }, true],
    [null, { signer: 'ci' }, false],
    [trusted, { signer: 'ci' }, true],
    [trusted, { signer: 'other' }, false],
    [untrusted, { signer: 'sha256:ab12' }, false],
    [untrusted, { untrusted: true, signer: 'ci' }, false],
    [trusted, { untrusted: true, signer: 'ci' }, false],
    // A release version is neither unsigned nor untrusted, and no policy entry names its signer.
    [release, { unsigned: true }, false],
    [release, { untrusted: true }, false],
    [release, { signer: 'ci' }, false],
  ])('%j with %j: %s', (provenance, filter, kept) =>
    expect(provenanceMatches(provenance, filter)).toBe(kept));
});

describe('rollbackCandidates', () => {
  it('keeps the installs that upgrade automatically, in order', () => {
    const install = (id: string, autoUpgrade: 'off' | 'compatible') => ({
      id,
      tenantId: T1,
      name: id,
      autoUpgrade,
    });
    expect(rollbackCandidates([])).toEqual([]);
    expect(
      rollbackCandidates([install('a', 'off'), install('b', 'compatible'), install('c', 'compatible')]),
    ).toEqual(['b', 'c']);
  });
});

describe('isUuid', () => {
  it.each([
    ['5c41491e-ebd2-49ee-8244-9e5109223e46', true],
    ['5C41491E-EBD2-49EE-8244-9E5109223E46', true],
    ['5c41491e-ebd2-49ee-8244-9e5109223e4', false],
    ['not-an-id', false],
    ['', false],
    ["5c41491e-ebd2-49ee-8244-9e5109223e46'", false],
  ])('%s: %s', (text, valid) => expect(isUuid(text)).toBe(valid));
});
