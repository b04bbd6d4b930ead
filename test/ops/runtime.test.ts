// The command's frame: help, usage errors, and a database behind the command's migrations refused.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '../support/database.ts';
import { ops } from '../support/ops.ts';

let migrated: string;
let blank: string;
let behind: string;

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  migrated = await createTestDatabase();
  const name = `test_${randomUUID().replaceAll('-', '')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(inject('pgAdminUrl'));
  url.pathname = `/${name}`;
  blank = url.toString();
  // A copy missing its newest migration, as a database an older platform left.
  behind = await createTestDatabase();
  const client = new pg.Client({ connectionString: behind });
  await client.connect();
  await client.query(
    'DELETE FROM drizzle.__drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM drizzle.__drizzle_migrations)',
  );
  await client.end();
});

afterAll(async () => {
  await admin(async (client) => {
    for (const url of [migrated, blank, behind]) {
      await client.query(`DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
    }
  });
});

describe('ops: the frame every command runs in', () => {
  it('--help lists every group and exits 0', async () => {
    const result = await ops(migrated, ['--help']);
    expect(result.code).toBe(0);
    for (const group of ['apps', 'platform', 'tenants', 'audit']) expect(result.stdout).toContain(group);
  });

  it('an unknown command is a usage error: exit 2, said on standard error', async () => {
    const result = await ops(migrated, ['nonsense']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'nonsense'/);
    expect(result.stdout).toBe('');
  });

  it.each([
    ['a database never migrated', () => blank],
    ['a database missing the newest migration', () => behind],
  ])('refuses %s: exit 1, schema_behind, nothing done', async (_case, url) => {
    const result = await ops(url(), ['audit']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^schema_behind: /);
    const asJson = await ops(url(), ['audit', '--json']);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stderr)).toEqual({
      error: { code: 'schema_behind', message: expect.any(String) },
    });
  });
});
