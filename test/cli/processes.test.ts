// The platform's processes as a user and a process manager meet them: `npm start` itself, two stacks on
// one machine, commands run while the platform runs, a database that goes away, and stopping by signal.
// Each embedded start costs seconds, so one DATA_DIR serves the file's tests in order.
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PORT } from '../../src/db/embedded-setup.ts';
import {
  baseEnv,
  cleanUpProcesses,
  dataDirs,
  type Env,
  expectNoPostgres,
  fetchFrom,
  freePorts,
  groupLeftovers,
  pgCtl,
  portOpen,
  type Result,
  type Running,
  removeTempDirs,
  run,
  startCommand,
  tempDir,
  tempDirs,
} from '../support/processes.ts';

const SLOW = 180_000;

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

/** Node's own warnings print as `(node:<pid>) SomethingWarning: ...`; npm's notices are not these. */
const NODE_WARNING = /\b\w*Warning: /;

function oneLine(result: Result): string {
  expect(result.stderr).toMatch(/^platform: [^\n]+\n$/);
  return result.stderr;
}

/** GET /tenants/me from the platform `npm start` runs. */
async function tenantsMe(
  api: string,
  token: string,
  running: Running,
): Promise<{ status: number; body: unknown }> {
  const response = await fetchFrom(running, `${api}/tenants/me`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: await response.json() };
}

/** Holds 127.0.0.1:port for the test when no one else does; answers a release. */
async function occupy(port: number): Promise<() => Promise<void>> {
  const server = net.createServer();
  const held = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
  return held ? () => new Promise((resolve) => server.close(() => resolve())) : async () => {};
}

/** Signals the `npm start` process alone, as a process manager does, and checks that nothing is left. */
async function stopAndCheck(
  running: Running,
  name: 'SIGTERM' | 'SIGINT',
  env: Env,
  dataDir: string,
  postgresPort: number,
): Promise<void> {
  const npmExited = once(running.child, 'exit');
  process.kill(running.child.pid as number, name);
  await npmExited;
  // Before its output closes: a platform left behind would hold it open.
  expect(await groupLeftovers(running.child)).toEqual([]);
  const result = await running.exited;
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).not.toMatch(NODE_WARNING);
  for (const port of [env.PORT, env.API_INTERNAL_PORT, env.RUNNER_PORT, env.WORKER_HEALTH_PORT])
    expect(await portOpen(Number(port))).toBe(false);
  await expectNoPostgres(dataDir, postgresPort);
  expect(existsSync(path.join(dataDir, 'platform.lock'))).toBe(false);
}

describe('npm start', () => {
  let dataDir: string;
  let env: Env;
  let postgresPort: number;

  it(
    'runs beside another stack, prints only its own lines, keeps its database from other commands, answers 503 while the database is gone, and stops on SIGTERM to npm',
    async () => {
      dataDir = path.join(await tempDir('apps-platform-npm-'), 'data dir');
      dataDirs.add(dataDir);
      const { EMBEDDED_POSTGRES_PORT: _picked, ...ports } = await freePorts();
      env = baseEnv({ ...ports, DATA_DIR: dataDir });
      // Another stack holds the default database port: this one picks another.
      const release = await occupy(DEFAULT_PORT);
      let running: Running;
      try {
        running = await startCommand(['npm', 'start'], env);
      } finally {
        await release();
      }
      expect(running.stderr()).not.toMatch(NODE_WARNING);
      postgresPort = Number(await fs.readFile(path.join(dataDir, 'postgres.port'), 'utf8'));
      expect(postgresPort).not.toBe(DEFAULT_PORT);
      expect(await portOpen(postgresPort)).toBe(true);
      const api = `http://127.0.0.1:${ports.PORT}`;

      // The banner's command, run exactly as printed, with nothing else set: it finds the running
      // database from DATA_DIR and leaves it running.
      const command = /Get a token: +([^\n]+)/.exec(running.stdout)?.[1] ?? '';
      expect(command).toBe(`DATA_DIR='${dataDir}' npx platform token --tenant acme --role admin`);
      const printed = await run([], baseEnv({}), { shell: command });
      expect(printed.code, printed.stderr).toBe(0);
      const token = printed.stdout.trim();
      expect(await tenantsMe(api, token, running)).toMatchObject({ status: 200, body: { name: 'acme' } });

      // A second start on the same DATA_DIR (its ports held by the first) refuses at once, in one line
      // naming DATA_DIR rather than the ports, and stops nothing.
      const second = await run(['start'], env);
      expect(second.code).toBe(1);
      expect(oneLine(second)).toMatch(
        new RegExp(`^platform: DATA_DIR ${dataDir} is in use by another platform process \\(pid \\d+\\)`),
      );
      // `platform migrate` migrates through the running server and leaves it running.
      const migrated = await run(['migrate'], baseEnv({ DATA_DIR: dataDir }));
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stdout).toBe('migrations applied\n');
      expect(await tenantsMe(api, token, running)).toMatchObject({ status: 200, body: { name: 'acme' } });

      // The database goes away: 503 with the error body, not 500; back once it returns.
      expect(await pgCtl(dataDir, ['stop', '-m', 'fast', '-w'])).toBe(0);
      const down = await tenantsMe(api, token, running);
      expect(down).toMatchObject({
        status: 503,
        body: { error: { code: 'service_unavailable', message: expect.stringContaining('database') } },
      });
      const flags = `-p ${postgresPort} -c listen_addresses=127.0.0.1`;
      const log = path.join(dataDir, 'postgres', 'server.log');
      expect(await pgCtl(dataDir, ['start', '-w', '-l', log, '-o', flags])).toBe(0);
      expect(await tenantsMe(api, token, running)).toMatchObject({ status: 200, body: { name: 'acme' } });

      await stopAndCheck(running, 'SIGTERM', env, dataDir, postgresPort);
    },
    SLOW,
  );

  it(
    'restarts on the port DATA_DIR recorded and stops on SIGINT to npm alone',
    async () => {
      expect(postgresPort, 'needs the first start').toBeDefined();
      const running = await startCommand(['npm', 'start'], env);
      expect(running.stderr()).not.toMatch(NODE_WARNING);
      expect(await portOpen(postgresPort)).toBe(true);
      await stopAndCheck(running, 'SIGINT', env, dataDir, postgresPort);
    },
    SLOW,
  );

  it(
    'refuses a taken EMBEDDED_POSTGRES_PORT in one line naming the setting',
    async () => {
      expect(postgresPort, 'needs the first start').toBeDefined();
      const taken = await freePorts();
      const release = await occupy(Number(taken.EMBEDDED_POSTGRES_PORT));
      try {
        const result = await run(['start'], baseEnv({ ...taken, DATA_DIR: dataDir }));
        expect(result.code).toBe(1);
        expect(oneLine(result)).toBe(
          `platform: EMBEDDED_POSTGRES_PORT ${taken.EMBEDDED_POSTGRES_PORT} is in use by another program; set EMBEDDED_POSTGRES_PORT to a free port, or leave it unset and the platform picks one\n`,
        );
        await expectNoPostgres(dataDir, postgresPort);
        expect(existsSync(path.join(dataDir, 'platform.lock'))).toBe(false);
      } finally {
        await release();
      }
    },
    SLOW,
  );
});

describe('a DATA_DIR PostgreSQL cannot enter', () => {
  it('is named in one line with the fix (as root, where PostgreSQL runs as its own user)', async () => {
    // mktemp -d's mode: only its owner may enter.
    const closed = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-closed-'));
    tempDirs.add(closed);
    expect((await fs.stat(closed)).mode & 0o777).toBe(0o700);
    const dataDir = path.join(closed, 'data');
    const result = await run(
      ['token', '--tenant', 'acme', '--role', 'admin'],
      baseEnv({ DATA_DIR: dataDir }),
    );
    if (process.getuid?.() === 0) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(oneLine(result)).toBe(
        `platform: PostgreSQL runs as the user postgres (it refuses root), which cannot enter ${closed}; run \`chmod o+x ${closed}\`, or set DATA_DIR to a directory under one it can enter\n`,
      );
      expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false);
    } else {
      // Not root: PostgreSQL runs as this user, who owns the directory.
      expect(result.code, result.stderr).toBe(0);
    }
  });
});
