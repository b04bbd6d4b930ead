// The real `platform` command, run as a child process the way a user runs it: embedded PostgreSQL
// under a temporary DATA_DIR, free ports, and the exact lines it prints. Each embedded start costs
// seconds, so these tests are few and carry their own timeouts.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { createLocalJWKSet, decodeJwt, type JWK, jwtVerify } from 'jose';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from '../../src/auth/local-keys.ts';
import { threadsAtStart } from '../../src/runner/threads/sandbox-pool.ts';
import { freePort } from '../support/free-port.ts';
import {
  BIN,
  baseEnv,
  children,
  cleanUpProcesses,
  collect,
  dataDirs,
  expectNoPostgres,
  freePorts,
  type Ports,
  portOpen,
  type Result,
  ROOT,
  removeTempDirs,
  run,
  signal,
  startedDataDir,
  startPlatform,
  tempDir,
} from '../support/processes.ts';

const SLOW = 120_000;
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

// Every directory and child made here is recorded and cleaned up, PostgreSQL included.
afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

async function tenantsMe(
  apiUrl: string,
  token: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${apiUrl}/tenants/me`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The JWT a token command printed: exactly one line holding three base64url parts. */
function printedJwt(result: Result): string {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^[^\n]+\n$/);
  const token = result.stdout.trim();
  expect(token).toMatch(JWT);
  return token;
}

async function verifyWithLocalKey(dataDir: string, token: string) {
  const secrets = JSON.parse(await fs.readFile(path.join(dataDir, 'secrets.json'), 'utf8')) as {
    signingKey: { publicJwk: JWK };
  };
  const keys = createLocalJWKSet({ keys: [secrets.signingKey.publicJwk] });
  return (await jwtVerify(token, keys, { issuer: LOCAL_ISSUER, audience: LOCAL_AUDIENCE })).payload;
}

// ---------------------------------------------------------------------------------------------------

describe('platform start --role all (embedded PostgreSQL)', () => {
  let home: string;
  let dataDir: string;
  let ports: Ports;
  let tenantId: string;

  it(
    'starts, prints the address and the exact token command, serves api, worker and runner, and stops on SIGTERM',
    async () => {
      // A space in the path: the printed command must still work when pasted into a shell.
      home = await tempDir('apps platform cli-');
      dataDir = path.join(home, '.data');
      dataDirs.add(dataDir);
      ports = await freePorts();
      const env = baseEnv({ ...ports, DATA_DIR: dataDir });

      const running = await startPlatform(['--role', 'all'], env);
      console.info(`platform start (first, with initdb): address printed after ${running.startMs} ms`);
      const api = `http://127.0.0.1:${ports.PORT}`;
      const lines = running.stdout.split('\n');
      expect(lines).toContain(
        `Apps Platform is running (embedded PostgreSQL, data in ${dataDir}); Ctrl-C stops it.`,
      );
      expect(lines).toContain(`  API        ${api}`);
      expect(lines).toContain(`  API docs   ${api}/docs`);
      expect(lines).toContain(`  Runner     http://127.0.0.1:${ports.RUNNER_PORT}`);
      expect(lines).toContain(`  Worker     http://127.0.0.1:${ports.WORKER_HEALTH_PORT}/healthz`);
      const tokenLine = lines.find((line) => line.startsWith('Get a token:'));
      const command = tokenLine?.replace(/^Get a token: +/, '') ?? '';
      expect(command).toBe(`DATA_DIR='${dataDir}' npx platform token --tenant acme --role admin`);

      // The printed command, run as printed through a shell from the repository.
      const { DATA_DIR: _omitted, ...envWithoutDataDir } = env;
      const token = printedJwt(await run([], envWithoutDataDir, { shell: command }));
      const me = await tenantsMe(api, token);
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({
        name: 'acme',
        retention: { appCallbackDays: 90, submissionEventDays: 90 },
      });
      tenantId = me.body.id as string;

      // The release catalogue built by npm ci is what a plain start publishes.
      const apps = await fetch(`${api}/apps`, { headers: { authorization: `Bearer ${token}` } });
      const listed = (await apps.json()) as {
        items: { name: string; publisher: string; latest: { platformSource: string } }[];
      };
      expect(listed.items.map((a) => [a.name, a.publisher, a.latest.platformSource])).toEqual([
        ['ai-risk-summary', 'platform', 'release'],
        ['http-connector', 'platform', 'release'],
        ['identity-verification', 'platform', 'release'],
        ['sanctions-screening', 'platform', 'release'],
      ]);
      expect(decodeJwt(token)).toMatchObject({ tenant: tenantId, kind: 'human', roles: ['admin'] });

      // Another tenant and user minted while the platform runs: it uses the running database.
      const analyst = printedJwt(
        await run(['token', '--tenant', 'beta-2', '--role', 'analyst', '--user', 'ann'], env),
      );
      expect(decodeJwt(analyst)).toMatchObject({ sub: 'user:ann', name: 'ann', roles: ['analyst'] });
      const beta = await tenantsMe(api, analyst);
      expect(beta.status).toBe(200);
      expect(beta.body.name).toBe('beta-2');
      expect(beta.body.id).not.toBe(tenantId);

      const worker = await fetch(`http://127.0.0.1:${ports.WORKER_HEALTH_PORT}/healthz`);
      expect(worker.status).toBe(200);
      expect(await worker.json()).toEqual({
        status: 'ok',
        workers: [
          { taskQueue: 'platform', state: 'running' },
          { taskQueue: 'apps', state: 'running' },
        ],
        temporal: { engine: 'dbos', database: 'connected' },
      });

      const runner = await fetch(`http://127.0.0.1:${ports.RUNNER_PORT}/health`);
      expect(runner.status).toBe(200);
      expect(await runner.json()).toEqual({
        status: 'ok',
        version: '0.0.0',
        inFlight: 0,
        concurrency: 8,
        cachedModules: 0,
        warmPlugins: 0,
        // One sandbox thread per core at start (8 at most, APP_RUNNER_CONCURRENCY); more as calls need them.
        threads: threadsAtStart(8),
        threadsReplaced: 0,
        warmPreparing: 0,
        warmBarred: 0,
        longCalls: 0,
      });
      expect((await fetch(`http://127.0.0.1:${ports.API_INTERNAL_PORT}/health`)).status).toBe(200);
      expect((await fetch(`${api}/health/ready`)).status).toBe(200);

      // Embedded mode keeps every listener on loopback: nothing answers on another address.
      for (const port of Object.values(ports)) expect(await portOpen(Number(port), '127.0.0.2')).toBe(false);

      signal(running, 'SIGTERM');
      const result = await running.exited;
      expect(result.code, result.stderr).toBe(0);
      expect(result.signal).toBeNull();
      expect(result.stderr).not.toMatch(/"level":"(error|fatal)"/);
      for (const port of Object.values(ports)) expect(await portOpen(Number(port))).toBe(false);
      await expectNoPostgres(dataDir, Number(ports.EMBEDDED_POSTGRES_PORT));
      // The generated secrets stay private to their owner.
      expect((await fs.stat(path.join(dataDir, 'secrets.json'))).mode & 0o077).toBe(0);
    },
    SLOW,
  );

  it(
    'keeps the data on a second start from the default ./.data, and stops on Ctrl-C (SIGINT to the group)',
    async () => {
      expect(tenantId, 'needs the first start').toBeDefined();
      // DATA_DIR unset: the default ./.data of the working directory, which is the first start's.
      const env = baseEnv({ ...ports });
      const running = await startPlatform(['--role', 'all'], env, home);
      console.info(`platform start (second, existing DATA_DIR): address printed after ${running.startMs} ms`);
      const lines = running.stdout.split('\n');
      expect(lines).toContain(
        `Apps Platform is running (embedded PostgreSQL, data in ${dataDir}); Ctrl-C stops it.`,
      );
      // At the default DATA_DIR the command needs no prefix.
      expect(lines).toContain('Get a token:  npx platform token --tenant acme --role admin');

      const token = printedJwt(
        await run(['token', '--tenant', 'acme', '--role', 'admin'], env, { cwd: home }),
      );
      const me = await tenantsMe(`http://127.0.0.1:${ports.PORT}`, token);
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ id: tenantId, name: 'acme' });

      signal(running, 'SIGINT');
      const result = await running.exited;
      expect(result.code, result.stderr).toBe(0);
      for (const port of Object.values(ports)) expect(await portOpen(Number(port))).toBe(false);
      await expectNoPostgres(dataDir, Number(ports.EMBEDDED_POSTGRES_PORT));
    },
    SLOW,
  );

  it(
    'stops PostgreSQL too when Ctrl-C arrives while PostgreSQL is still starting',
    async () => {
      // A DATA_DIR a first start made (initdb is not this test's subject), without the server log its
      // starts wrote: pg_ctl writes it again as it starts the server.
      const dir = await startedDataDir('apps-platform-cli-early-');
      const log = path.join(dir, 'postgres', 'server.log');
      await fs.rm(log);
      const early = await freePorts();
      const child = spawn(process.execPath, [BIN, 'start', '--role', 'all'], {
        cwd: ROOT,
        env: baseEnv({ ...early, DATA_DIR: dir }),
        detached: true,
      });
      children.add(child);
      const { exited } = collect(child);
      let gone = false;
      void exited.then(() => {
        gone = true;
      });
      while (!existsSync(log) && !gone) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(gone, 'the platform exited before starting PostgreSQL').toBe(false);
      signal(child, 'SIGINT');

      const result = await exited;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toContain('is running');
      await expectNoPostgres(dir, Number(early.EMBEDDED_POSTGRES_PORT));
      for (const port of Object.values(early)) expect(await portOpen(Number(port))).toBe(false);
    },
    SLOW,
  );

  it(
    'stops PostgreSQL too when a supervisor sends SIGTERM while the platform is still starting',
    async () => {
      const dir = await startedDataDir('apps-platform-cli-early-');
      const early = await freePorts();
      const child = spawn(process.execPath, [BIN, 'start', '--role', 'all'], {
        cwd: ROOT,
        env: baseEnv({ ...early, DATA_DIR: dir }),
        detached: true,
      });
      children.add(child);
      const { exited } = collect(child);
      let gone = false;
      void exited.then(() => {
        gone = true;
      });
      // PostgreSQL answers; migrations, the worker and the api come after.
      while (!(await portOpen(Number(early.EMBEDDED_POSTGRES_PORT))) && !gone) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(gone, 'the platform exited before starting PostgreSQL').toBe(false);
      signal(child, 'SIGTERM');

      const result = await exited;
      expect(result.code, result.stderr).toBe(0);
      await expectNoPostgres(dir, Number(early.EMBEDDED_POSTGRES_PORT));
      for (const port of Object.values(early)) expect(await portOpen(Number(port))).toBe(false);
    },
    SLOW,
  );

  it(
    'exits non-zero, naming every taken port and its setting in one line, before starting anything',
    async () => {
      const dir = path.join(await tempDir('apps-platform-cli-busy-'), 'data');
      dataDirs.add(dir);
      const busy = await freePorts();
      const blockers = [net.createServer(), net.createServer()];
      const held = [busy.PORT, busy.RUNNER_PORT];
      await Promise.all(
        blockers.map(
          (blocker, i) =>
            new Promise<void>((resolve) => blocker.listen(Number(held[i]), '127.0.0.1', resolve)),
        ),
      );
      try {
        const child = spawn(process.execPath, [BIN, 'start', '--role', 'all'], {
          cwd: ROOT,
          env: baseEnv({ ...busy, DATA_DIR: dir }),
          detached: true,
        });
        children.add(child);
        const result = await collect(child).exited;
        expect(result.code).toBe(1);
        expect(result.stderr).toBe(
          `platform: PORT ${busy.PORT} and RUNNER_PORT ${busy.RUNNER_PORT} are in use by other programs; set PORT and RUNNER_PORT to free ports\n`,
        );
        expect(result.stdout).not.toContain('is running');
        // Nothing was started: no database, no listener, not even DATA_DIR.
        expect(existsSync(dir)).toBe(false);
        const { PORT: _api, RUNNER_PORT: _runner, ...others } = busy;
        for (const port of Object.values(others)) expect(await portOpen(Number(port))).toBe(false);
      } finally {
        await Promise.all(blockers.map((blocker) => new Promise((resolve) => blocker.close(resolve))));
      }
    },
    SLOW,
  );
});

describe('platform token', () => {
  it(
    'starts the embedded database briefly when the platform is not running, and leaves no server',
    async () => {
      const dataDir = path.join(await tempDir('apps-platform-cli-token-'), 'data');
      dataDirs.add(dataDir);
      const ports = await freePorts();
      const env = baseEnv({ ...ports, DATA_DIR: dataDir });

      const token = printedJwt(await run(['token', '--tenant', 'acme', '--role', 'admin'], env));
      await expectNoPostgres(dataDir, Number(ports.EMBEDDED_POSTGRES_PORT));
      const payload = await verifyWithLocalKey(dataDir, token);
      expect(payload).toMatchObject({
        tenant: expect.stringMatching(/^[0-9a-f-]{36}$/),
        sub: 'user:developer',
        name: 'developer',
        kind: 'human',
        roles: ['admin'],
        permissions: [],
      });
      // Twelve hours by default.
      expect((payload.exp as number) - (payload.iat as number)).toBe(12 * 3600);

      // The tenant was kept: a second token, for a machine with an extra permission, names the same one.
      const machine = printedJwt(
        await run(
          [
            'token',
            '--tenant',
            'acme',
            '--role',
            'analyst',
            '--machine',
            '--permission',
            'audit:read',
            '--expires-in',
            '30m',
          ],
          env,
        ),
      );
      await expectNoPostgres(dataDir, Number(ports.EMBEDDED_POSTGRES_PORT));
      const machinePayload = await verifyWithLocalKey(dataDir, machine);
      expect(machinePayload).toMatchObject({
        tenant: payload.tenant,
        sub: 'machine:service',
        kind: 'machine',
        roles: ['analyst'],
        permissions: ['audit:read'],
      });
      expect((machinePayload.exp as number) - (machinePayload.iat as number)).toBe(30 * 60);

      // `platform migrate` in embedded mode does the same: starts, migrates, stops.
      const migrated = await run(['migrate'], env);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stdout).toBe('migrations applied\n');
      await expectNoPostgres(dataDir, Number(ports.EMBEDDED_POSTGRES_PORT));
    },
    SLOW,
  );

  it('refuses bad usage on stderr, with nothing on stdout and nothing written to DATA_DIR', async () => {
    const dataDir = await tempDir('apps-platform-cli-usage-');
    const ports = await freePorts();
    const env = baseEnv({ ...ports, DATA_DIR: dataDir });
    const cases: [string[], RegExp][] = [
      [['--tenant', 'acme', '--role', 'boss'], /--role/],
      [['--tenant', 'Not A Name', '--role', 'admin'], /--tenant/],
      [['--tenant', '-acme', '--role', 'admin'], /--tenant/],
      [['--tenant', 'acme', '--role', 'admin', '--permission', 'apps:destroy'], /--permission.*apps:destroy/],
      [['--tenant', 'acme'], /--role/],
      [['--role', 'admin'], /--tenant/],
      [['--tenant', 'acme', '--role', 'admin', '--expires-in', 'forever'], /--expires-in/],
      [['--tenant', 'acme', '--role', 'admin', '--expires-in', '-5m'], /--expires-in/],
      [['--tenant', 'acme', '--role', 'admin', '--expires-in', '0h'], /--expires-in/],
    ];
    const results = await Promise.all(cases.map(([args]) => run(['token', ...args], env)));
    results.forEach((result, i) => {
      const [args, message] = cases[i] as [string[], RegExp];
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.code, args.join(' ')).not.toBeNull();
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toMatch(message);
    });
    expect(await fs.readdir(dataDir)).toEqual([]);
    expect(await portOpen(Number(ports.EMBEDDED_POSTGRES_PORT))).toBe(false);
  }, 120_000); // nine CLI processes at once: on 2 loaded cores one took 11 s, past the 30 s default
});

describe('platform migrate (DATABASE_URL)', () => {
  it(
    'applies the migrations to an empty database and exits 0, twice',
    async () => {
      const admin = new URL(inject('pgAdminUrl'));
      const name = `cli_migrate_${process.pid}_${Date.now()}`;
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      const url = new URL(admin);
      url.pathname = `/${name}`;
      const env = baseEnv({
        DATABASE_URL: url.toString(),
        DATA_DIR: await tempDir('apps-platform-cli-migrate-'),
      });

      const tables = async () => {
        const db = new pg.Client({ connectionString: url.toString() });
        await db.connect();
        try {
          const found = await db.query<{ name: string }>(
            `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
              WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
          );
          const applied = found.rows.some((r) => r.name === 'drizzle.__drizzle_migrations')
            ? (await db.query('SELECT hash FROM drizzle.__drizzle_migrations')).rowCount
            : 0;
          return { names: found.rows.map((r) => r.name), applied };
        } finally {
          await db.end();
        }
      };
      expect((await tables()).names).toEqual([]);

      const first = await run(['migrate'], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toBe('migrations applied\n');
      const after = await tables();
      expect(after.names).toEqual(expect.arrayContaining(['public.audit_events', 'public.tenants']));
      // One row per committed migration.
      const committed = (await fs.readdir(path.join(import.meta.dirname, '../../src/db/migrations'))).filter(
        (f) => f.endsWith('.sql'),
      );
      expect(after.applied).toBe(committed.length);

      const second = await run(['migrate'], env);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toBe('migrations applied\n');
      expect(await tables()).toEqual(after);
    },
    SLOW,
  );

  it('exits non-zero with the reason on stderr when the database cannot be reached', async () => {
    const url = `postgres://postgres:postgres@127.0.0.1:${await freePort()}/platform`;
    const result = await run(['migrate'], baseEnv({ DATABASE_URL: url }));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^platform: .*ECONNREFUSED/m);
  });
});

describe('platform start in production (DATABASE_URL set)', () => {
  const DATABASE_URL = 'postgres://platform:secret@127.0.0.1:1/platform';

  it('refuses to start the api without its settings, naming each one', async () => {
    const result = await run(['start', '--role', 'api'], baseEnv({ DATABASE_URL, ...(await freePorts()) }));
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stdout).toBe('');
    for (const name of [
      'APP_RUNNER_TOKEN',
      'APP_CALL_TOKEN_SECRET',
      'AUTH_JWKS_URL',
      'AUTH_ISSUER',
      'AUTH_AUDIENCE',
    ]) {
      expect(result.stderr).toContain(name);
    }
    expect(result.stderr).not.toContain('SECRET_STORE_KEY');
  });

  it('names only what the runner lacks', async () => {
    const result = await run(
      ['start', '--role', 'runner'],
      baseEnv({ DATABASE_URL, ...(await freePorts()) }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('APP_RUNNER_TOKEN');
    expect(result.stderr).not.toMatch(/APP_CALL_TOKEN_SECRET|AUTH_/);
  });

  it('refuses bad settings with exit code 2, naming each', async () => {
    const result = await run(['start', '--role', 'all'], baseEnv({ PORT: 'eighty', LOG_LEVEL: 'loud' }));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('PORT');
    expect(result.stderr).toContain('LOG_LEVEL');
  });

  it('refuses an unknown role', async () => {
    const result = await run(['start', '--role', 'boss'], baseEnv({ DATABASE_URL }));
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--role');
  });
});
