import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { timed } from './profile.ts';

/** A fresh, migrated database for one test file (a copy of the run's template). */
export function createTestDatabase(): Promise<string> {
  return timed('database', copyTemplate);
}

async function copyTemplate(): Promise<string> {
  const adminUrl = inject('pgAdminUrl');
  const name = `test_${randomUUID().replaceAll('-', '')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
