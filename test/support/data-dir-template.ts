// A DATA_DIR as a first `platform start` leaves it once stopped: PostgreSQL initialised, the platform's
// database migrated, the engine's tables made, the release catalogue published, the generated secrets
// written. The run's global set-up makes it once with the real command; a file whose test is not about a
// first start copies it (processes.ts, startedDataDir) instead of paying for initdb, the migrations and
// the first publication again (about 2 s of CPU each). Apart from processes.ts because the global set-up
// must not load vitest's test API.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { baseEnv, freePorts } from './child-env.ts';

const exec = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/platform.js');
const LIMIT_MS = 180_000;

/** Starts `platform start --role all` on a fresh DATA_DIR under `dir`, waits for its block, Ctrl-C. */
export async function makeDataDirTemplate(dir: string): Promise<string> {
  const dataDir = path.join(dir, 'data');
  const env = baseEnv({ ...(await freePorts()), DATA_DIR: dataDir });
  const child = spawn(process.execPath, [BIN, 'start', '--role', 'all'], { env, detached: true });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const started = await new Promise<boolean>((resolve) => {
    const limit = setTimeout(() => resolve(false), LIMIT_MS);
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if (/Get a token: [^\n]*\n\n/.test(stdout)) {
        clearTimeout(limit);
        resolve(true);
      }
    });
    void exited.then(() => {
      clearTimeout(limit);
      resolve(false);
    });
  });
  process.kill(-(child.pid as number), started ? 'SIGINT' : 'SIGKILL');
  const code = await exited;
  if (!started || code !== 0) {
    throw new Error(`the DATA_DIR template's platform start failed (${code}):\n${stdout}\n${stderr}`);
  }
  return dataDir;
}

/** A copy of the template at `dataDir` (owners and modes kept: PostgreSQL's files are its user's). */
export async function copyDataDirTemplate(template: string, dataDir: string): Promise<void> {
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  await exec('cp', ['-a', template, dataDir]);
}

/** A temporary directory for the template, reachable by PostgreSQL's user. */
export async function templateHome(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-data-template-'));
  await fs.chmod(dir, 0o755);
  return dir;
}
