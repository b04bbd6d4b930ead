// A database migrated only up to a given migration, for tests of what a later migration does to data
// written before it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { inject } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate.ts';

/** The migrations up to and including `last`, in a folder of their own. */
export async function migrationsUpTo(last: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'migrations-'));
  await fs.cp(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journalPath = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(await fs.readFile(journalPath, 'utf8')) as { entries: { tag: string }[] };
  const end = journal.entries.findIndex((entry) => entry.tag === last);
  journal.entries = journal.entries.slice(0, end + 1);
  await fs.writeFile(journalPath, JSON.stringify(journal));
  return dir;
}

/** A new empty database of the run's server, and a client connected to it. */
export async function emptyDatabase(prefix: string): Promise<{ url: string; client: pg.Client }> {
  const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await admin.connect();
  const name = `${prefix}_${Date.now()}_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const parsed = new URL(inject('pgAdminUrl'));
  parsed.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: parsed.toString() });
  await client.connect();
  return { url: parsed.toString(), client };
}

/** Migrates the client's database up to and including `last`. */
export async function migrateUpTo(client: pg.Client, last: string): Promise<void> {
  const folder = await migrationsUpTo(last);
  try {
    await migrate(drizzle(client), { migrationsFolder: folder });
  } finally {
    await fs.rm(folder, { recursive: true, force: true });
  }
}
