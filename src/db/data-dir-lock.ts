// DATA_DIR/platform.lock: held by the one command that runs the embedded PostgreSQL of a DATA_DIR, for as
// long as it runs it. It holds that command's pid; a lock whose process is gone (killed) is stale and is
// taken over. A second command finds the lock held and refuses with one line, before it touches anything.
import fs from 'node:fs/promises';
import path from 'node:path';

export const LOCK_FILE = 'platform.lock';

export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by another platform process (pid ${pid}); stop it first, or set DATA_DIR to another directory`,
    );
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

/** Takes DATA_DIR's lock for this process, or throws DataDirInUse naming the live holder. */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = path.join(dataDir, LOCK_FILE);
  // Three tries: each stale lock removed may race with another command taking it first.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await fs.writeFile(file, `${process.pid}\n`, { flag: 'wx', mode: 0o644 });
      return { release: () => releaseIfOurs(file) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await lockHolder(dataDir);
    if (holder !== null && holder !== process.pid) throw new DataDirInUse(dataDir, holder);
    await fs.rm(file, { force: true });
  }
  throw new DataDirInUse(dataDir, (await lockHolder(dataDir)) ?? 0);
}

/** The live process holding DATA_DIR's lock, or null (no lock, or its process is gone). */
export async function lockHolder(dataDir: string): Promise<number | null> {
  const text = await fs.readFile(path.join(dataDir, LOCK_FILE), 'utf8').catch(() => null);
  const pid = Number(text?.trim());
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
}

/** Whether process `pid` exists (under any user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function releaseIfOurs(file: string): Promise<void> {
  const text = await fs.readFile(file, 'utf8').catch(() => null);
  if (Number(text?.trim()) === process.pid) await fs.rm(file, { force: true });
}
