// What every benchmark stands on: an embedded PostgreSQL with a migrated `bench` database in a temporary
// directory, torn down afterwards whatever happened, and an admin token of a tenant.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LocalKeys } from '../src/auth/local-keys.ts';
import { signLocalToken } from '../src/auth/tokens.ts';
import { ensureDatabase, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import type { Database } from '../src/db/pool.ts';
import { ensureTenant } from '../src/tenants/service.ts';
import { freePort } from '../test/support/free-port.ts';

export interface BenchDatabase {
  /** The temporary directory (DATA_DIR of what the benchmark starts). */
  dir: string;
  /** The migrated `bench` database. */
  url: string;
  /** Run in order before PostgreSQL stops; a closer's failure does not keep the others from running. */
  closers: (() => Promise<void>)[];
}

export async function withBenchDatabase(prefix: string, run: (bench: BenchDatabase) => Promise<void>) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.chmod(dir, 0o755); // PostgreSQL runs as its own user and must reach its directory
  const server = await startEmbeddedPostgres({ dataDir: dir, port: await freePort() });
  const closers: BenchDatabase['closers'] = [];
  try {
    await ensureDatabase(server.url('postgres'), 'bench');
    await applyMigrations(server.url('bench'));
    await run({ dir, url: server.url('bench'), closers });
  } finally {
    for (const close of closers) await close().catch(() => {});
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Tenant `bench` and a token of its admin, signed with the local key the api verifies. */
export async function benchAdmin(database: Database, keys: LocalKeys) {
  const { tenant } = await ensureTenant(database.db, 'bench');
  const token = await signLocalToken(keys.privateJwk, {
    tenant: tenant.id,
    sub: 'user:bench',
    roles: ['admin'],
  });
  return { tenantId: tenant.id, token };
}
