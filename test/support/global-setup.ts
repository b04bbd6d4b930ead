// One embedded PostgreSQL per test run; a migrated template database that each test file copies.
import { readFileSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { build, freshBuild } from '../../scripts/cli-build.js';
import { ensureDatabase, startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { makeDataDirTemplate, templateHome } from './data-dir-template.ts';
import { freePort } from './free-port.ts';
import { stopSharedPlatforms } from './shared-platforms.ts';

export const TEMPLATE_DATABASE = 'platform_template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
    /** Where the platforms a worker shares between its files are recorded (test/support/shared-platforms.ts). */
    sharedPlatforms: string;
    /** A DATA_DIR a first `platform start` made and stopped (test/support/data-dir-template.ts). */
    dataDirTemplate: string;
  }
}

/** For npm run test:profile: the CPU the run's PostgreSQL used (its backends, waited for, included). */
function recordPostgresCpu(dir: string): void {
  const out = process.env.TEST_PROFILE_OUT;
  if (!out) return;
  try {
    const pid = readFileSync(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0];
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .slice(11, 15)
      .map(Number);
    writeFileSync(`${out}.postgres`, String((fields.reduce((a, b) => a + b, 0) * 1000) / 100));
  } catch {}
}

export default async function setup(project: TestProject) {
  // The commands tests spawn run from their build (scripts/cli-build.js): made here once when the sources
  // changed since, rather than by every test file's first command at once.
  if (freshBuild() === null) await build();
  // The DATA_DIR template's `platform start` runs while the suite's own PostgreSQL starts and migrates.
  const templateDir = await templateHome();
  const dataDirTemplate = makeDataDirTemplate(templateDir);
  dataDirTemplate.catch(() => {});
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-test-'));
  await fs.chmod(dir, 0o755); // PostgreSQL runs as its own user and must reach its directory
  const server = await startEmbeddedPostgres({
    dataDir: dir,
    port: await freePort(),
    // Nothing crashes this server (tests that stop or kill PostgreSQL start their own), so it keeps no
    // promise to survive an operating system's crash: no flush at each commit, no fsync, no full pages.
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
  });
  await ensureDatabase(server.url('postgres'), TEMPLATE_DATABASE);
  await applyMigrations(server.url(TEMPLATE_DATABASE));
  project.provide('pgAdminUrl', server.url('postgres'));
  project.provide('pgTemplate', TEMPLATE_DATABASE);
  const sharedPlatforms = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-shared-'));
  project.provide('sharedPlatforms', sharedPlatforms);
  project.provide(
    'dataDirTemplate',
    await dataDirTemplate.catch(async (error) => {
      await server.stop();
      throw error;
    }),
  );
  return async () => {
    await stopSharedPlatforms(sharedPlatforms);
    recordPostgresCpu(dir);
    await server.stop();
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rm(templateDir, { recursive: true, force: true });
  };
}
