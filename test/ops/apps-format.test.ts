// How `ops apps` summarises a version's parts in one cell (src/ops/apps-format.ts), as tables.
import { describe, expect, it } from 'vitest';
import {
  blockTarget,
  blockText,
  installsCount,
  installsSummary,
  provenanceText,
  publisherText,
  reviewText,
} from '../../src/ops/apps-format.ts';

const install = (tenant: string, name: string) => ({ tenant, name });

describe('installsSummary', () => {
  it.each([
    [[], '-'],
    [[install('acme', 'kyc')], '1: acme/kyc'],
    [[install('acme', 'kyc'), install('beta', 'screen')], '2: acme/kyc, beta/screen'],
    [[install('a', '1'), install('a', '2'), install('b', '3')], '3: a/1, a/2, b/3'],
    [
      [install('a', '1'), install('a', '2'), install('b', '3'), install('c', '4'), install('c', '5')],
      '5: a/1, a/2, b/3 +2 more',
    ],
  ])('%j: %s', (installs, text) => expect(installsSummary(installs)).toBe(text));
});

describe('publisherText', () => {
  it.each([
    [{ publisher: 'tenant' as const, platformSource: null, tenant: 'acme' }, 'acme'],
    [{ publisher: 'platform' as const, platformSource: 'release', tenant: null }, 'platform (release)'],
    [{ publisher: 'platform' as const, platformSource: 'operator', tenant: null }, 'platform (operator)'],
    [{ publisher: 'platform' as const, platformSource: null, tenant: null }, 'platform'],
  ])('%j: %s', (version, text) => expect(publisherText(version)).toBe(text));
});

describe('reviewText and blockText', () => {
  it.each([
    [null, '-'],
    [{ status: 'pending', decidedBy: null }, 'pending'],
    [{ status: 'rejected', decidedBy: 'olga' }, 'rejected by olga'],
  ])('review %j: %s', (review, text) => expect(reviewText(review)).toBe(text));
  it.each([
    [null, '-'],
    [{ scope: 'module', reason: 'leaks' }, 'module: leaks'],
    [{ scope: 'app', reason: 'vendor gone' }, 'app: vendor gone'],
  ])('block %j: %s', (block, text) => expect(blockText(block)).toBe(text));
});

describe('provenanceText', () => {
  it.each([
    [null, null, '-'],
    [{ kind: 'signature', trusted: true }, 'ci', 'signature ci (trusted)'],
    [{ kind: 'attestation', trusted: false }, 'x', 'attestation x (untrusted)'],
    [{ kind: 'signature', trusted: false }, null, 'signature ? (untrusted)'],
  ])('%j by %s: %s', (provenance, signer, text) => expect(provenanceText(provenance, signer)).toBe(text));
});

describe('blockTarget', () => {
  it.each([
    [{ sha256: 'a'.repeat(64), publisher: null, tenant: null, appName: null }, 'a'.repeat(64)],
    [{ sha256: null, publisher: 'platform', tenant: null, appName: 'kyc' }, 'platform/kyc'],
    [{ sha256: null, publisher: 'tenant', tenant: 'acme', appName: 'kyc' }, 'acme/kyc'],
  ])('%j: %s', (block, text) => expect(blockTarget(block)).toBe(text));
});

describe('installsCount', () => {
  it.each([
    [0, '0 installs'],
    [1, '1 install'],
    [2, '2 installs'],
  ])('%d: %s', (n, text) => expect(installsCount(n)).toBe(text));
});
