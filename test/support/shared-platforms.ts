// Platforms that outlive the test file that started them: one `platform start` a vitest worker shares
// between the files it runs (the console's browser files, test/support/console.ts). Files share a
// worker's modules (isolate: false), so the first file to ask starts it and the next ones find it. No
// file stops it: each one's record (its process group, DATA_DIR and temporary directory) is written to
// a directory the run's global set-up gives, and the set-up's teardown stops every recorded platform once
// the workers are done, as Ctrl-C would (the platform stops its PostgreSQL), then deletes its directory.
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pgCtl } from './pg-ctl.ts';

export interface SharedPlatformRecord {
  /** The platform's process (the leader of its process group). */
  pid: number;
  dataDir: string;
  /** Its temporary directory, deleted once it has stopped. */
  dir: string;
}

export async function recordSharedPlatform(recordsDir: string, record: SharedPlatformRecord): Promise<void> {
  await fs.writeFile(path.join(recordsDir, `${record.pid}.json`), JSON.stringify(record));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Waits for `pid` to end, polling; false when it still runs after `limitMs`. */
async function ended(pid: number, limitMs: number): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/**
 * Stops every recorded platform: SIGINT to its group (Ctrl-C), SIGKILL to what is left after a minute;
 * a PostgreSQL a killed platform left running is stopped; then its directory goes.
 */
export async function stopSharedPlatforms(recordsDir: string): Promise<void> {
  const names = await fs.readdir(recordsDir).catch(() => [] as string[]);
  await Promise.all(
    names.map(async (name) => {
      const record = JSON.parse(
        await fs.readFile(path.join(recordsDir, name), 'utf8'),
      ) as SharedPlatformRecord;
      try {
        process.kill(-record.pid, 'SIGINT');
      } catch {}
      if (!(await ended(record.pid, 60_000))) {
        try {
          process.kill(-record.pid, 'SIGKILL');
        } catch {}
      }
      if (existsSync(path.join(record.dataDir, 'postgres', 'postmaster.pid')))
        await pgCtl(record.dataDir, ['stop', '-m', 'immediate', '-w']);
      await fs.rm(record.dir, { recursive: true, force: true });
    }),
  );
  await fs.rm(recordsDir, { recursive: true, force: true });
}
