// `ops apps list` through the real command on the platform's database (docs/operations.md "ops apps
// list"): every version of every publisher with its review, block, provenance and installs, as JSON and
// as an aligned table, and each filter.

import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { appVersions } from '../../src/catalogue/tables.ts';
import { ok, type Version } from '../installs/support.ts';
import { keylessPolicy, keylessRecord } from '../support/sigstore.ts';
import { appsSuite, column } from './apps-support.ts';

const suite = appsSuite();

interface Listed {
  id: string;
  publisher: string;
  tenant: string | null;
  name: string;
  version: string;
  status: string;
  installs: { tenant: string; name: string; hosts: string[] }[];
  [key: string]: unknown;
}

/** The policy every run reads: one keyless signer, named ci@list-a. */
const env = { APP_TRUSTED_SIGNERS: keylessPolicy('ci@list-a', 'https://ci.list-a.test/**') };
const list = async (...filters: string[]) =>
  (await suite.json<{ items: Listed[] }>(['apps', 'list', ...filters], { env })).items;
const names = (items: Listed[]) => items.map((v) => `${v.tenant ?? 'platform'}/${v.name}@${v.version}`);

let l1: Version;
let l2: Version;
let draft: Version;
let review: Version;
let platformIds: Map<string, string>;
let withdrawn: Version;

beforeAll(async () => {
  l1 = await suite.published('list-a', 'lister', '1.0.0');
  l2 = await suite.published('list-a', 'lister', '1.1.0');
  draft = await suite.uploaded('list-a', 'lister', '2.0.0');
  withdrawn = await suite.published('list-b', 'other');
  await ok(
    await suite.platform.fetch(`/apps/other/versions/${withdrawn.id}`, {
      method: 'DELETE',
      token: await suite.as('list-b'),
    }),
  );
  review = await suite.underReview('list-c', 'reviewed');
  platformIds = await suite.platformApp('plat-list', ['1.0.0']);
  await suite.install('list-a', 'lister-prod', l2.id);
  await suite.install('list-a', 'plat-a', platformIds.get('1.0.0') as string);
  await suite.install('list-b', 'plat-b', platformIds.get('1.0.0') as string, { autoUpgrade: 'compatible' });
  await suite.json(['apps', 'block', '--sha256', l1.sha256, '--reason', 'leaks', '--by', 'olga']);
}, 120_000);

describe('ops apps list --json', () => {
  it('lists every version, platform first, then by tenant, app and version highest first', async () => {
    expect(names(await list())).toEqual([
      'platform/plat-list@1.0.0',
      'list-a/lister@2.0.0',
      'list-a/lister@1.1.0',
      'list-a/lister@1.0.0',
      'list-b/other@1.0.0',
      'list-c/reviewed@1.0.0',
    ]);
  });

  it('gives each version its publisher, hash, hosts, needs, review, block, provenance and installs with hosts', async () => {
    const items = await list();
    const platformVersion = items.find((v) => v.name === 'plat-list');
    expect(platformVersion).toEqual({
      id: platformIds.get('1.0.0'),
      publisher: 'platform',
      platformSource: 'release',
      tenantId: null,
      tenant: null,
      name: 'plat-list',
      version: '1.0.0',
      status: 'published',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      hosts: ['api.vendor.test'],
      needs: [],
      createdAt: expect.any(String),
      publishedAt: expect.any(String),
      review: null,
      block: null,
      // A release version: shipped with the platform (docs/provenance.md), so never listed as unsigned.
      provenance: {
        kind: 'release',
        signer: { kind: 'release' },
        source: null,
        transparencyLog: null,
        signedAt: null,
        trusted: true,
        trustedSigner: null,
      },
      installs: [
        {
          id: expect.any(String),
          tenantId: await suite.tenantId('list-a'),
          tenant: 'list-a',
          name: 'plat-a',
          enabled: false,
          autoUpgrade: 'off',
          hosts: ['api.vendor.test'],
        },
        {
          id: expect.any(String),
          tenantId: await suite.tenantId('list-b'),
          tenant: 'list-b',
          name: 'plat-b',
          enabled: false,
          autoUpgrade: 'compatible',
          hosts: ['api.vendor.test'],
        },
      ],
    });
    expect(items.find((v) => v.id === l1.id)).toMatchObject({
      publisher: 'tenant',
      platformSource: null,
      tenant: 'list-a',
      sha256: l1.sha256,
      block: { id: expect.any(String), scope: 'module', reason: 'leaks', createdBy: 'olga' },
      installs: [],
    });
    expect(items.find((v) => v.id === l2.id)?.installs.map((i) => i.name)).toEqual(['lister-prod']);
    expect(items.find((v) => v.id === review.id)).toMatchObject({
      status: 'uploaded',
      review: { status: 'pending', versionId: review.id, decidedBy: null, comment: null },
    });
    expect(items.find((v) => v.id === withdrawn.id)).toMatchObject({ status: 'withdrawn' });
  });
});

describe('filters', () => {
  it.each([
    [
      '--tenant by name',
      ['--tenant', 'list-a'],
      ['list-a/lister@2.0.0', 'list-a/lister@1.1.0', 'list-a/lister@1.0.0'],
    ],
    ['--platform', ['--platform'], ['platform/plat-list@1.0.0']],
    ['--app', ['--app', 'other'], ['list-b/other@1.0.0']],
    ['--status uploaded', ['--status', 'uploaded'], ['list-a/lister@2.0.0', 'list-c/reviewed@1.0.0']],
    ['--status withdrawn', ['--status', 'withdrawn'], ['list-b/other@1.0.0']],
    [
      '--app with --status',
      ['--app', 'lister', '--status', 'published'],
      ['list-a/lister@1.1.0', 'list-a/lister@1.0.0'],
    ],
    ['--untrusted (no provenance yet: none)', ['--untrusted'], []],
    ['--signer (no provenance yet: none)', ['--signer', 'ci@list-a'], []],
  ])('%s', async (_case, filters, expected) => {
    expect(names(await list(...filters))).toEqual(expected);
  });

  it('--tenant takes an id too; --unsigned keeps every tenant version while none has provenance', async () => {
    expect(names(await list('--tenant', await suite.tenantId('list-b')))).toEqual(['list-b/other@1.0.0']);
    // The release's version has provenance of kind release: not unsigned.
    const unsigned = names(await list('--unsigned'));
    expect(unsigned).toHaveLength(5);
    expect(unsigned).not.toContain('platform/plat-list@1.0.0');
  });

  it('--unsigned, --untrusted and --signer read the provenance a version records', async () => {
    const db = suite.platform.database.db;
    await db
      .update(appVersions)
      .set({ provenance: keylessRecord('https://ci.list-a.test/release/main') })
      .where(eq(appVersions.id, l2.id));
    await db
      .update(appVersions)
      .set({ provenance: keylessRecord('someone@list-a.test') })
      .where(eq(appVersions.id, draft.id));
    try {
      expect(names(await list('--signer', 'ci@list-a'))).toEqual(['list-a/lister@1.1.0']);
      expect(names(await list('--untrusted'))).toEqual(['list-a/lister@2.0.0']);
      expect(names(await list('--tenant', 'list-a', '--unsigned'))).toEqual(['list-a/lister@1.0.0']);
      const human = await suite.run(['apps', 'list', '--tenant', 'list-a'], { env });
      expect(column(human.stdout, 'PROVENANCE')).toEqual([
        'signature someone@list-a.test (https://issuer.test) (untrusted)',
        'signature ci@list-a (trusted)',
        '-',
      ]);
    } finally {
      await db.update(appVersions).set({ provenance: null }).where(eq(appVersions.id, l2.id));
      await db.update(appVersions).set({ provenance: null }).where(eq(appVersions.id, draft.id));
    }
  });

  it.each([
    ['--tenant with --platform', ['--tenant', 'list-a', '--platform']],
    ['an unknown --status', ['--status', 'deleted']],
    ['an unknown option', ['--bogus']],
  ])('%s is a usage error: exit 2', async (_case, filters) => {
    const result = await suite.run(['apps', 'list', ...filters]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toBe('');
  });

  it('an unknown --tenant: exit 1, not_found', async () => {
    const result = await suite.run(['apps', 'list', '--tenant', 'nobody']);
    expect([result.code, result.stderr]).toEqual([1, 'not_found: no tenant is named nobody\n']);
  });
});

describe('ops apps list as a table', () => {
  it('prints one aligned row per version, installs summarised', async () => {
    const result = await suite.run(['apps', 'list']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^PUBLISHER\s+APP\s+VERSION\s+ID\s+STATUS\s+SHA256\s+HOSTS\s+NEEDS\s+REVIEW\s+BLOCK\s+PROVENANCE\s+INSTALLS$/,
    );
    expect(lines).toHaveLength(7);
    expect(column(result.stdout, 'PUBLISHER')).toEqual([
      'platform (release)',
      'list-a',
      'list-a',
      'list-a',
      'list-b',
      'list-c',
    ]);
    expect(column(result.stdout, 'VERSION')).toEqual(['1.0.0', '2.0.0', '1.1.0', '1.0.0', '1.0.0', '1.0.0']);
    expect(column(result.stdout, 'STATUS')).toEqual([
      'published',
      'uploaded',
      'published',
      'published',
      'withdrawn',
      'uploaded',
    ]);
    expect(column(result.stdout, 'SHA256')[3]).toBe(l1.sha256);
    expect(column(result.stdout, 'HOSTS')).toEqual(Array(6).fill('api.vendor.test'));
    expect(column(result.stdout, 'NEEDS')).toEqual(Array(6).fill('-'));
    expect(column(result.stdout, 'REVIEW')).toEqual(['-', '-', '-', '-', '-', 'pending']);
    expect(column(result.stdout, 'BLOCK')).toEqual(['-', '-', '-', 'module: leaks', '-', '-']);
    expect(column(result.stdout, 'PROVENANCE')).toEqual([
      'release platform (trusted)',
      ...Array(5).fill('-'),
    ]);
    expect(column(result.stdout, 'INSTALLS')).toEqual([
      '2: list-a/plat-a, list-b/plat-b',
      '-',
      '1: list-a/lister-prod',
      '-',
      '-',
      '-',
    ]);
  });

  it('reports its progress on a terminal only', async () => {
    const onTerminal = await suite.run(['apps', 'list'], { tty: true });
    expect(onTerminal.stderr).toBe('\rreading versions 0/6\rreading versions 6/6\n');
    expect((await suite.run(['apps', 'list'])).stderr).toBe('');
  });
});
