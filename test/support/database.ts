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
    // A copy of the template's files rather than of its pages through the WAL: a fraction of the work.
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${inject('pgTemplate')} STRATEGY FILE_COPY`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
