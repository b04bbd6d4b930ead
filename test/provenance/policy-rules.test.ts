// The trust policy's pure rules (src/provenance/policy-rules.ts, record.ts), as tables.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  identityMatches,
  keyIdOf,
  provenanceView,
  type SignerRecord,
  type TrustedSigner,
  trustedSignerOf,
} from '../../src/provenance/index.ts';

describe('identityMatches', () => {
  it.each([
    [
      'https://github.com/acme/kyc/.github/workflows/release.yml@refs/heads/main',
      'https://github.com/acme/**',
      true,
    ],
    [
      'https://github.com/acme/kyc/.github/workflows/release.yml@refs/heads/main',
      'https://github.com/acme/*',
      false,
    ],
    ['https://github.com/acme/kyc', 'https://github.com/acme/*', true],
    ['https://github.com/acme/kyc', 'https://github.com/*/kyc', true],
    ['https://github.com/acme/team/kyc', 'https://github.com/*/kyc', false],
    ['https://github.com/acme/team/kyc', 'https://github.com/**/kyc', true],
    ['ci@acme.test', 'ci@acme.test', true],
    ['ci@acmeXtest', 'ci@acme.test', false],
    ['ci@acme.test', '*@acme.test', true],
    ['ci@acme.test.evil', '*@acme.test', false],
    ['a+b@acme.test', 'a+b@acme.test', true],
    ['', '*', true],
  ])('%s against %s: %s', (identity, glob, matches) => expect(identityMatches(glob, identity)).toBe(matches));
});

const key = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey;
const keyId = keyIdOf(key);
const policy: TrustedSigner[] = [
  { name: 'acme-ci', issuer: 'https://issuer.test', identity: 'https://github.com/acme/**' },
  { name: 'ops', issuer: 'https://issuer.test', identity: 'ops@acme.test' },
  { name: 'release-key', publicKey: key.export({ type: 'spki', format: 'pem' }).toString(), keyId },
];

describe('trustedSignerOf', () => {
  const keyless = (identity: string, issuer = 'https://issuer.test'): SignerRecord => ({
    kind: 'keyless',
    issuer,
    identity,
  });
  it.each([
    [keyless('https://github.com/acme/kyc/wf@refs/heads/main'), 'acme-ci'],
    [keyless('ops@acme.test'), 'ops'],
    [keyless('ops@acme.test', 'https://other-issuer.test'), null],
    [keyless('mallory@evil.test'), null],
    [{ kind: 'key', keyId } as SignerRecord, 'release-key'],
    [{ kind: 'key', keyId: `sha256:${'0'.repeat(64)}` } as SignerRecord, null],
  ])('%j: %s', (signer, name) => expect(trustedSignerOf(signer, policy)?.name ?? null).toBe(name));
});

describe('provenanceView', () => {
  const record = {
    kind: 'signature',
    signer: { kind: 'keyless', issuer: 'https://issuer.test', identity: 'ops@acme.test' },
    source: null,
    transparencyLog: null,
    signedAt: '2026-11-26T10:00:00.000Z',
  };
  it.each([
    ['none', null, policy, null],
    ['a row from before provenance', { kind: 'signature', signer: 'ci', trusted: true }, policy, null],
    ['trusted by the policy', record, policy, { ...record, trusted: true, trustedSigner: 'ops' }],
    ['under an empty policy', record, [], { ...record, trusted: false, trustedSigner: null }],
  ])('%s', (_case, value, signers, shown) => expect(provenanceView(value, signers)).toEqual(shown));
});
