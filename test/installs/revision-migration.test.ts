// Migration 0004 on data written before it: open changes keep answering as they did (approvable when
// their install had not moved, install_changed when it had), the trigger moves revisions from then on,
// and metering rows take their install's current name, or a removed install's last one.
import fs from 'node:fs/promises';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { applyMigrations } from '../../src/db/migrate.ts';
import { migrationsUpTo } from '../support/migrations.ts';

const BEFORE = '0003_changes_limits_cache_metering';
const T = '00000000-0000-4000-8000-000000000001';
const MOVED = '00000000-0000-4000-8000-0000000000a1';
const STILL = '00000000-0000-4000-8000-0000000000a2';
const GONE = '00000000-0000-4000-8000-0000000000a3';

let client: pg.Client;
let url: string;
let folder: string;

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await admin.connect();
  const name = `migration_${Date.now()}_${process.pid}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const parsed = new URL(inject('pgAdminUrl'));
  parsed.pathname = `/${name}`;
  url = parsed.toString();
  client = new pg.Client({ connectionString: url });
  await client.connect();
  folder = await migrationsUpTo(BEFORE);
  await migrate(drizzle(client), { migrationsFolder: folder });
});
afterAll(async () => {
  await client?.end();
  if (folder) await fs.rm(folder, { recursive: true, force: true });
});

const install = (id: string, name: string) =>
  client.query(
    `insert into app_installs (id, tenant_id, name, app_name, version_id, enabled, config, hosts, updated_at)
     values ($1, $2, $3, 'echo', gen_random_uuid(), false, '{}', '[]', '2026-01-01T00:00:00Z')`,
    [id, T, name],
  );
const change = (installId: string, installUpdatedAt: string) =>
  client.query(
    `insert into app_install_changes (tenant_id, install_id, install_name, version_id, config, enabled,
       auto_upgrade, hosts, hosts_added, origin, new_install, install_updated_at, approval_required,
       four_eyes, requested_by)
     values ($1, $2, 'n', gen_random_uuid(), '{}', true, 'off', '[]', '[]', 'save', false, $3, true, true, 'user:ada')`,
    [T, installId, installUpdatedAt],
  );
const metered = (installId: string, name: string, day: string) =>
  client.query(
    `insert into app_metering (tenant_id, install_id, install_name, app_name, action, day, calls)
     values ($1, $2, $3, 'echo', 'echo', $4, 1)`,
    [T, installId, name, day],
  );

describe('migration 0004', () => {
  it('keeps open changes answering as before, moves revisions by trigger and names metering rows', async () => {
    await install(STILL, 'still');
    await install(MOVED, 'moved');
    await change(STILL, '2026-01-01T00:00:00Z');
    await change(MOVED, '2025-12-31T00:00:00Z');
    await metered(STILL, 'former', '2026-01-01');
    await metered(STILL, 'still', '2026-01-02');
    await metered(GONE, 'old-gone', '2026-01-01');
    await metered(GONE, 'gone', '2026-01-02');

    await applyMigrations(url);

    const revisions = await client.query(
      `select i.name, i.revision, c.install_revision from app_installs i
       join app_install_changes c on c.install_id = i.id order by i.name`,
    );
    expect(revisions.rows).toEqual([
      { name: 'moved', revision: 0, install_revision: -1 },
      { name: 'still', revision: 0, install_revision: 0 },
    ]);
    const names = await client.query(
      'select install_id, day, install_name from app_metering order by install_id, day',
    );
    expect(names.rows.map((row) => [row.install_id, row.day, row.install_name])).toEqual([
      [STILL, '2026-01-01', 'still'],
      [STILL, '2026-01-02', 'still'],
      [GONE, '2026-01-01', 'gone'],
      [GONE, '2026-01-02', 'gone'],
    ]);

    // A rename or circuit settings leave the revision; version, config, hosts, enabled, autoUpgrade move it.
    const revisionAfter = async (set: string) => {
      const result = await client.query(`update app_installs set ${set} where id = $1 returning revision`, [
        STILL,
      ]);
      return result.rows[0].revision as number;
    };
    expect(await revisionAfter(`name = 'renamed', circuit_failure_threshold = 3`)).toBe(0);
    expect(await revisionAfter('enabled = false')).toBe(0);
    expect(await revisionAfter('enabled = true')).toBe(1);
    expect(await revisionAfter(`config = '{"a":1}'`)).toBe(2);
    expect(await revisionAfter(`hosts = '["h"]'`)).toBe(3);
    expect(await revisionAfter(`auto_upgrade = 'compatible'`)).toBe(4);
    expect(await revisionAfter('version_id = gen_random_uuid()')).toBe(5);
  });
});
