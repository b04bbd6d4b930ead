// A command (`platform token`, `platform migrate`, `ops`) beside a running platform uses the platform's
// embedded PostgreSQL, found from DATA_DIR (src/cli/database.ts). On a busy machine that server may take
// more than a second to answer a new connection (the fork, the password exchange): while a platform holds
// DATA_DIR, the command waits for it rather than taking the silence for no server, which would try to
// start one and be refused DATA_DIR's lock. The slow server here is the suite's PostgreSQL behind a relay
// that holds each connection 1.5 s before passing it on; DATA_DIR is written as a running platform leaves it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { openDatabaseAsFound } from '../../src/cli/database.ts';
import { loadConfig } from '../../src/config.ts';
import { databaseAnswers } from '../../src/db/probe.ts';
import { type DatabaseRelay, startDatabaseRelay } from '../support/database-relay.ts';

const HOLD_MS = 1_500;

let relay: DatabaseRelay;
let dir: string;

beforeAll(async () => {
  const target = new URL(inject('pgAdminUrl'));
  relay = await startDatabaseRelay(target, { holdMs: HOLD_MS });

  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-command-database-'));
  await fs.mkdir(path.join(dir, 'postgres'));
  // PostgreSQL's pid file: its fourth line is the port.
  await fs.writeFile(path.join(dir, 'postgres', 'postmaster.pid'), `1\n${dir}/postgres\n0\n${relay.port}\n`);
  await fs.writeFile(
    path.join(dir, 'secrets.json'),
    JSON.stringify({ databasePassword: decodeURIComponent(target.password) }),
  );
  // The platform holding DATA_DIR: a live process (this test's parent).
  await fs.writeFile(path.join(dir, 'platform.lock'), `${process.ppid}\n`);
});

afterAll(async () => {
  await relay?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

it('the relay answers later than the one-second probe commands made before', async () => {
  const url = `postgres://postgres:${new URL(inject('pgAdminUrl')).password}@127.0.0.1:${relay.port}/postgres`;
  expect(await databaseAnswers(url, 1000)).toBe(false);
});

it('waits for the database of the platform holding DATA_DIR, and leaves its lock alone', async () => {
  const handle = await openDatabaseAsFound(loadConfig({ DATA_DIR: dir }, dir));
  expect(handle.embedded).toBe(true);
  expect(new URL(handle.url).port).toBe(String(relay.port));
  expect(await databaseAnswers(handle.url.replace(/\/platform$/, '/postgres'), 10_000)).toBe(true);
  await handle.stop();
  expect(await fs.readFile(path.join(dir, 'platform.lock'), 'utf8')).toBe(`${process.ppid}\n`);
});
