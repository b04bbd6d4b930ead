// Applies the committed SQL migrations under an advisory lock, so copies starting together take turns.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { openClient } from './client.ts';

export const MIGRATIONS_FOLDER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const MIGRATION_LOCK_KEY = 7_240_001;

export async function applyMigrations(url: string): Promise<void> {
  const client = openClient({ connectionString: url, application_name: 'apps-platform-migrate' });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

/** The newest migration this code carries, by its journal's timestamp (what drizzle's migrator records). */
async function newestMigrationMillis(): Promise<number> {
  const journal = JSON.parse(
    await fs.readFile(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'),
  ) as { entries: { when: number }[] };
  return Math.max(...journal.entries.map((e) => e.when));
}

/**
 * Whether the database's schema lacks a migration this code carries (the operator's commands refuse such a
 * database rather than migrate it: migrating is the platform's start-up, or `platform migrate`).
 */
export async function schemaBehind(url: string): Promise<boolean> {
  const client = openClient({ connectionString: url, application_name: 'apps-platform-schema-check' });
  try {
    await client.connect();
  } catch (error) {
    // No database at all (invalid_catalog_name): nothing has been migrated.
    if ((error as { code?: string }).code === '3D000') return true;
    throw error;
  }
  try {
    const table = await client.query<{ exists: boolean }>(
      "SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS exists",
    );
    if (!table.rows[0]?.exists) return true;
    const applied = await client.query<{ newest: string | null }>(
      'SELECT max(created_at)::text AS newest FROM drizzle.__drizzle_migrations',
    );
    return Number(applied.rows[0]?.newest ?? 0) < (await newestMigrationMillis());
  } finally {
    await client.end();
  }
}
