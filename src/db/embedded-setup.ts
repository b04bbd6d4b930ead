// What the embedded PostgreSQL needs before it starts: a DATA_DIR its user can reach, and a free port.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** PostgreSQL's user when it is not ours (as root): initdb and the server run under these ids. */
export interface Owner {
  uid?: number;
  gid?: number;
}

export const PORT_FILE = 'postgres.port';
/** Tried first when EMBEDDED_POSTGRES_PORT is unset and DATA_DIR records no port. */
export const DEFAULT_PORT = 54329;

export class EmbeddedSetupError extends Error {}

/**
 * Creates DATA_DIR. As root, the directories created here get o+x, so PostgreSQL's own user can pass
 * through them even under a strict umask; directories that were there before are the operator's.
 */
export async function ensureDataDir(dataDir: string, owner: Owner): Promise<void> {
  const first = await fs.mkdir(dataDir, { recursive: true });
  if (first === undefined || owner.uid === undefined) return;
  for (let dir = dataDir; ; dir = path.dirname(dir)) {
    const { mode } = await fs.stat(dir);
    await fs.chmod(dir, (mode & 0o7777) | 0o001);
    if (dir === first || dir === path.dirname(dir)) break;
  }
}

/**
 * Refuses, in one line naming the directory and the fix, a DATA_DIR that PostgreSQL's user cannot reach
 * (as root, e.g. under a `mktemp -d` directory of mode 0700): initdb would fail with "Permission denied".
 * Asked of the system itself (`test -x` under the same ids initdb runs with), from `/` down.
 */
export async function assertReachable(dataDir: string, owner: Owner): Promise<void> {
  if (owner.uid === undefined) return;
  const chain: string[] = [];
  for (let dir = dataDir; ; dir = path.dirname(dir)) {
    chain.unshift(dir);
    if (dir === path.dirname(dir)) break;
  }
  // One shell for the whole chain (a process each would cost a start a dozen spawns): it prints the first
  // directory the user cannot enter.
  const blocked = await run(
    '/bin/sh',
    ['-c', 'for d; do test -x "$d" || { printf %s "$d"; exit 1; }; done', 'sh', ...chain],
    owner,
  ).then(
    () => null,
    (error: { stdout?: string }) => error.stdout || dataDir,
  );
  if (blocked !== null) {
    throw new EmbeddedSetupError(
      `PostgreSQL runs as the user postgres (it refuses root), which cannot enter ${blocked}; run \`chmod o+x ${blocked}\`, or set DATA_DIR to a directory under one it can enter`,
    );
  }
}

/**
 * The embedded server's port. EMBEDDED_POSTGRES_PORT set: that one, refused in one line when another
 * program holds it. Unset: the port DATA_DIR recorded last time, else 54329, else any free port, so two
 * stacks on one machine never clash.
 */
export async function choosePort(configured: number | null, dataDir: string): Promise<number> {
  if (configured !== null) {
    if (!(await portFree(configured))) throw portTaken(configured);
    return configured;
  }
  const recorded = await recordedPort(dataDir);
  for (const candidate of [recorded, DEFAULT_PORT]) {
    if (candidate !== null && (await portFree(candidate))) return candidate;
  }
  return freePort();
}

export function portTaken(port: number): EmbeddedSetupError {
  return new EmbeddedSetupError(
    `EMBEDDED_POSTGRES_PORT ${port} is in use by another program; set EMBEDDED_POSTGRES_PORT to a free port, or leave it unset and the platform picks one`,
  );
}

export async function recordPort(dataDir: string, port: number): Promise<void> {
  await fs.writeFile(path.join(dataDir, PORT_FILE), `${port}\n`);
}

async function recordedPort(dataDir: string): Promise<number | null> {
  const text = await fs.readFile(path.join(dataDir, PORT_FILE), 'utf8').catch(() => null);
  const port = Number(text?.trim());
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : null;
}

/** Whether PostgreSQL could listen on 127.0.0.1:port now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port free on 127.0.0.1 now, chosen by the system. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
