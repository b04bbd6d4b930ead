// What `ops apps block` and `apps unblock` refuse, on a migrated database (a block by hash needs no version
// of it): a second block of what a standing one stops, unknown and lifted blocks, unknown tenants, and
// usage errors (exit 2) with nothing blocked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBlocks } from '../../src/catalogue/tables.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { createTestDatabase } from '../support/database.ts';
import { ops, opsJson } from '../support/ops.ts';

let url: string;
let database: Database;
beforeAll(async () => {
  url = await createTestDatabase();
  database = openDatabase(url);
});
afterAll(async () => database?.close());

const HASH = 'c'.repeat(64);
const block = (sha256: string, ...more: string[]) => ['apps', 'block', '--sha256', sha256, ...more];

describe('refusals', () => {
  it('a second block of what an unlifted block stops: exit 1, conflict naming the block', async () => {
    const first = await opsJson<{ block: { id: string } }>(url, block(HASH, '--reason', 'r', '--by', 'o'));
    const again = await ops(url, block(HASH.toUpperCase(), '--reason', 'r2', '--by', 'o'));
    expect([again.code, again.stderr]).toEqual([1, 'conflict: an unlifted block already stops this\n']);
    const asJson = await ops(url, block(HASH, '--reason', 'r', '--by', 'o', '--json'));
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stderr)).toEqual({
      error: {
        code: 'conflict',
        message: 'an unlifted block already stops this',
        details: { blockId: first.block.id },
      },
    });
    expect(await database.db.select().from(appBlocks)).toHaveLength(1);
    // Lifted, the same target may be blocked again.
    await opsJson(url, ['apps', 'unblock', first.block.id, '--by', 'o']);
    await opsJson(url, block(HASH, '--reason', 'r3', '--by', 'o'));
  });

  it('an app block and a module block stand together; the same app of another publisher is another target', async () => {
    const tenant = ['--app', 'kyc', '--platform', '--reason', 'r', '--by', 'o'];
    await opsJson(url, ['apps', 'block', ...tenant]);
    const twice = await ops(url, ['apps', 'block', ...tenant]);
    expect([twice.code, twice.stderr]).toEqual([1, 'conflict: an unlifted block already stops this\n']);
    await opsJson(url, block('d'.repeat(64), '--reason', 'r', '--by', 'o'));
  });

  it('unknown and lifted blocks, unknown tenants: exit 1, not_found and conflict', async () => {
    const { block: set } = await opsJson<{ block: { id: string } }>(
      url,
      block('e'.repeat(64), '--reason', 'r', '--by', 'o'),
    );
    await opsJson(url, ['apps', 'unblock', set.id, '--by', 'o']);
    const twice = await ops(url, ['apps', 'unblock', set.id, '--by', 'o']);
    expect([twice.code, twice.stderr]).toEqual([1, 'conflict: the block was already lifted by o\n']);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const unknown = await ops(url, ['apps', 'unblock', id, '--by', 'o']);
      expect([unknown.code, unknown.stderr]).toEqual([1, 'not_found: no block has that id\n']);
    }
    const tenant = await ops(url, [
      'apps',
      'block',
      '--app',
      'x',
      '--tenant',
      'nobody',
      '--reason',
      'r',
      '--by',
      'o',
    ]);
    expect([tenant.code, tenant.stderr]).toEqual([1, 'not_found: no tenant is named nobody\n']);
  });

  it.each([
    ['no --by', block(HASH, '--reason', 'r')],
    ['a --by of 101 characters', block(HASH, '--reason', 'r', '--by', 'b'.repeat(101))],
    ['an empty --by', block(HASH, '--reason', 'r', '--by', '')],
    ['no --reason', block(HASH, '--by', 'o')],
    ['an empty --reason', block(HASH, '--reason', ' ', '--by', 'o')],
    ['no target', ['apps', 'block', '--reason', 'r', '--by', 'o']],
    ['a hash that is not one', block('abc', '--reason', 'r', '--by', 'o')],
    ['--sha256 with --app', block(HASH, '--app', 'x', '--reason', 'r', '--by', 'o')],
    ['--app without its publisher', ['apps', 'block', '--app', 'x', '--reason', 'r', '--by', 'o']],
    [
      '--tenant with --platform',
      ['apps', 'block', '--app', 'x', '--tenant', 't', '--platform', '--reason', 'r', '--by', 'o'],
    ],
    ['unblock without --by', ['apps', 'unblock', '00000000-0000-4000-8000-000000000000']],
    [
      'unblock with a --by of 101 characters',
      ['apps', 'unblock', '00000000-0000-4000-8000-000000000000', '--by', 'b'.repeat(101)],
    ],
    ['unblock without an id', ['apps', 'unblock', '--by', 'o']],
  ])('%s is a usage error: exit 2, nothing blocked', async (_case, argv) => {
    const before = await database.db.select().from(appBlocks);
    const result = await ops(url, argv);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toBe('');
    expect(result.stdout).toBe('');
    expect(await database.db.select().from(appBlocks)).toEqual(before);
  });
});
