// The apps and approvals pages' pure rules: what a provenance, a publish, a decision and an upload's
// refusal say; which links are links; the definition approvals' filters from the URL; who may withdraw;
// which version of a definition is shown.
import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../../console/src/api/errors.ts';
import type { Principal } from '../../console/src/auth/claims.ts';
import {
  changePath,
  definitionFilters,
  definitionPath,
  mayWithdraw,
  versionNumber,
} from '../../console/src/pages/approvals/approvals-rules.ts';
import {
  commentBody,
  decisionOutcome,
  durationText,
  type Provenance,
  type PublishResult,
  provenanceVerdict,
  publishOutcome,
  signerText,
  uploadProblemPath,
  uploadRefusalLead,
  versionPath,
  webHref,
} from '../../console/src/pages/apps/app-rules.ts';
import { shownVersion } from '../../console/src/pages/definitions/definition-rules.ts';

const provenance = (over: Partial<Provenance>): Provenance => ({
  kind: 'signature',
  signer: {
    kind: 'keyless',
    issuer: 'https://token.actions.githubusercontent.com',
    identity: 'https://github.com/acme/kyc',
  },
  source: null,
  transparencyLog: null,
  signedAt: '2026-11-01T10:00:00.000Z',
  trusted: true,
  trustedSigner: 'acme-ci',
  ...over,
});

describe('provenance', () => {
  it.each([
    ['none', null, 'Not signed: no provenance was attached to this version.'],
    [
      'the release',
      provenance({ kind: 'release', signer: { kind: 'release' } }),
      "Trusted: shipped with the platform's release catalogue.",
    ],
    [
      'a trusted keyless signature',
      provenance({}),
      'Trusted as acme-ci: a signature over the module by https://github.com/acme/kyc (issued by https://token.actions.githubusercontent.com).',
    ],
    [
      'an untrusted key attestation',
      provenance({
        kind: 'attestation',
        signer: { kind: 'key', keyId: 'sha256:ab12' },
        trusted: false,
        trustedSigner: null,
      }),
      "Not trusted: an attestation naming the module by the key sha256:ab12, whom this deployment's trusted signers do not name.",
    ],
  ])('%s', (_what, given, said) => {
    expect(provenanceVerdict(given)).toBe(said);
  });

  it('names each kind of signer', () => {
    expect(signerText({ kind: 'release' })).toBe("the platform's release");
    expect(signerText({ kind: 'key', keyId: 'sha256:00' })).toBe('the key sha256:00');
  });
});

describe('what a publish and a decision did', () => {
  const version = { name: 'kyc-check', version: '1.0.0' } as PublishResult['version'];
  it.each([
    ['published', { version }, 'kyc-check 1.0.0 is published.'],
    [
      'held for approval',
      { version, approval: {} },
      'kyc-check 1.0.0 waits for approval: another administrator approves or rejects it under Publish requests.',
    ],
    [
      'held for review',
      { version, review: {} },
      "kyc-check 1.0.0 waits for the operator's review before it is published.",
    ],
  ])('%s', (_what, result, said) => {
    expect(publishOutcome(result as PublishResult)).toBe(said);
  });

  it.each([
    ['approve', { version }, 'kyc-check 1.0.0 was approved and is published.'],
    [
      'approve',
      { version, review: {} },
      "kyc-check 1.0.0 was approved; it now waits for the operator's review.",
    ],
    ['reject', { version }, 'kyc-check 1.0.0 was rejected; it stays uploaded and may be published again.'],
  ] as const)('%s → %s', (decision, result, said) => {
    expect(decisionOutcome(decision, result)).toBe(said);
  });

  it.each([
    ['', {}],
    ['   ', {}],
    [' checked ', { comment: 'checked' }],
  ])('a comment %j is sent as %j', (comment, body) => {
    expect(commentBody(comment)).toEqual(body);
  });
});

describe("an upload's refusal", () => {
  const refusal = (details: Record<string, unknown>, code = 'validation_error') =>
    new ApiFailure(400, code, 'refused', 'req-1', details);
  it.each([
    [
      'a manifest field',
      refusal({ code: 'invalid_module', issues: [{ path: 'manifest.colour' }] }),
      'manifest.colour',
      'The module is not one the platform runs',
    ],
    [
      'the whole module',
      refusal({ code: 'not_wasm', issues: [{ path: '/' }] }),
      null,
      'The file is not a WebAssembly module',
    ],
    ['an unknown code', refusal({ code: 'something_new', issues: [] }), null, null],
    ['another failure', refusal({ issues: [{ path: 'manifest.x' }] }, 'conflict'), null, null],
    ['not an API failure', new Error('boom'), null, null],
  ])('%s', (_what, error, path, lead) => {
    expect(uploadProblemPath(error)).toBe(path);
    expect(uploadRefusalLead(error)).toBe(lead);
  });
});

describe('links', () => {
  it.each([
    ['https://docs.example/api', 'https://docs.example/api'],
    ['http://docs.example', 'http://docs.example/'],
    ['javascript:alert(1)', null],
    ['data:text/html,<b>', null],
    ['not a url', null],
    [null, null],
  ])('webHref(%j) is %j', (url, href) => {
    expect(webHref(url)).toBe(href);
  });

  it('escapes names in paths', () => {
    expect(versionPath('a/b', 'id 1')).toBe('/apps/a%2Fb/versions/id%201');
    expect(changePath('kyc', 'c1')).toBe('/apps/installs/kyc/changes/c1');
    expect(definitionPath('rule_set', 'limits', 3)).toBe('/rule-sets/limits/versions/3');
    expect(definitionPath('workflow', 'onboarding')).toBe('/workflows/onboarding');
  });

  it.each([
    ['800', 800, '800 ms'],
    ['30 s', 30_000, '30 s'],
    ['1.5 s', 1_500, '1.5 s'],
    ['3 min', 180_000, '3 min'],
  ])('durationText %s', (_what, ms, said) => {
    expect(durationText(ms)).toBe(said);
  });
});

describe("definition approvals' filters from the URL", () => {
  it.each([
    [{}, {}],
    [
      { status: 'rejected', kind: 'rule_set', key: 'Limits' },
      { status: 'rejected', kind: 'rule_set', key: 'limits' },
    ],
    [{ status: 'maybe', kind: 'case', key: '-bad' }, {}],
    [{ key: '  onboarding ' }, { key: 'onboarding' }],
  ])('%j → %j', (params, filters) => {
    const get = (name: string) => (params as Record<string, string>)[name];
    expect(definitionFilters(get)).toEqual(filters);
  });

  it.each([
    ['3', 3],
    ['0', null],
    ['1e3', null],
    [undefined, null],
  ])('version %j → %j', (text, number) => {
    expect(versionNumber(text)).toBe(number);
  });
});

describe('who may withdraw', () => {
  const principal = (subject: string, roles: string[], granted: string[] = []): Principal => ({
    tenantId: 't',
    subject,
    name: subject,
    kind: 'user',
    roles,
    granted,
    expiresAt: null,
  });
  it.each([
    ['the requester', principal('user:ada', [], ['definitions:publish']), true],
    ['an administrator (tenants:settings)', principal('user:bob', ['admin']), true],
    ['another publisher', principal('user:cy', [], ['definitions:publish']), false],
    ['the requester without the permission', principal('user:ada', ['analyst']), false],
    ['nobody signed in', null, false],
  ])('%s: %s', (_who, p, may) => {
    expect(mayWithdraw(p, 'user:ada', 'definitions:publish')).toBe(may);
  });
});

describe('the version a definition page shows', () => {
  const published = { version: 2 };
  const draft = { version: 3 };
  it.each([
    ['none asked: the published one', { published, draft }, null, published],
    ['none asked, none published: the draft', { published: null, draft }, null, draft],
    ['the draft asked', { published, draft }, 3, draft],
    ['the published asked', { published, draft }, 2, published],
    ['an older one: no body', { published, draft }, 1, null],
    ['nothing at all', { published: null, draft: null }, null, null],
  ])('%s', (_what, definition, asked, shown) => {
    expect(shownVersion(definition, asked)).toBe(shown);
  });
});
