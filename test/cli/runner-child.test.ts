// `npm start` (`platform start --role all`) runs the runner in a child process of its own (src/cli/
// runner-child.ts): the runner's listening socket belongs to that child, a test call through the api
// reaches it, a killed child is restarted and serves the next call, Ctrl-C ends every process, and a
// killed platform leaves no runner behind. Real processes: the README stack (embedded PostgreSQL, a vendor
// double), the runner's process read from /proc.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { answer, type ReadmeStack, startReadmeStack } from '../e2e/readme-stack.ts';
import { alive, listeningPid, parentPid } from '../support/proc.ts';
import {
  baseEnv,
  cleanUpProcesses,
  expectNoPostgres,
  freePorts,
  groupLeftovers,
  portOpen,
  removeTempDirs,
  startedDataDir,
  startPlatform,
} from '../support/processes.ts';

const SLOW = 180_000;

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

/** The runner's port, from the line the platform printed. */
function runnerPort(stdout: string): number {
  const url = /^ {2}Runner {5}(http\S+)$/m.exec(stdout)?.[1];
  expect(url, stdout).toBeDefined();
  return Number(new URL(url as string).port);
}

/** Installs http-connector against a vendor double (README "Try an app"); answers a test call of it. */
async function installConnector(stack: ReadmeStack): Promise<() => Promise<unknown>> {
  const { client } = stack;
  const { host } = await stack.startVendor();
  const versions = await answer(
    client.GET('/apps/{name}/versions', { params: { path: { name: 'http-connector' } } }),
  );
  const versionId = versions.body.items[0].id as string;
  const config = { baseUrl: `http://${host}`, auth: { type: 'apiKey', header: 'X-Api-Key' } };
  const installed = await answer(
    client.POST('/app-installs', {
      body: { name: 'vendor', versionId, enabled: false, config, approveHosts: [host] },
    }),
  );
  expect(installed.status, installed.text).toBe(201);
  const path = { install: 'vendor', secret: 'API_KEY' };
  const stored = await answer(
    client.POST('/app-installs/{install}/secrets/{secret}', {
      params: { path },
      body: { value: 'k-1234567890' },
    }),
  );
  expect(stored.status, stored.text).toBe(200);
  const enabled = await answer(
    client.PUT('/app-installs/{install}', {
      params: { path: { install: 'vendor' } },
      body: { versionId, enabled: true, config },
    }),
  );
  expect(enabled.status, enabled.text).toBe(200);
  return async () => {
    const tested = await answer(
      client.POST('/app-installs/{install}/test', {
        params: { path: { install: 'vendor' } },
        body: { action: 'request', input: { method: 'GET', path: '/hello' } },
      }),
    );
    expect(tested.status, tested.text).toBe(200);
    return tested.body;
  };
}

describe('npm start: the runner in a process of its own', () => {
  it(
    'serves calls from a child of the platform, restarts it when it is killed, and stops every process on Ctrl-C',
    async () => {
      const stack = await startReadmeStack('runner', 'apps-platform-runner-child-');
      const platformPid = stack.platform.child.pid as number;
      const port = runnerPort(stack.platform.stdout);
      const first = listeningPid(port) as number;
      expect(first).not.toBeNull();
      expect(first).not.toBe(platformPid);
      expect(parentPid(first)).toBe(platformPid);

      const testCall = await installConnector(stack);
      expect(await testCall()).toMatchObject({ status: 'success', output: { status: 200 } });

      // A runner that dies (a hostile module, the OOM killer) is replaced on the same port; the next
      // call goes through.
      process.kill(first, 'SIGKILL');
      const replaced = () => ![null, first].includes(listeningPid(port));
      await expect.poll(replaced, { timeout: 30_000, interval: 50 }).toBe(true);
      const second = listeningPid(port) as number;
      expect(parentPid(second)).toBe(platformPid);
      expect(await testCall()).toMatchObject({ status: 'success', output: { status: 200 } });

      const { platform } = await stack.stop();
      expect(platform.code, platform.stderr).toBe(0);
      expect(platform.stdout).toContain('runner process exited; restarting it');
      expect(alive(second)).toBe(false);
      expect(await groupLeftovers(stack.platform.child)).toEqual([]);
      expect(await portOpen(port)).toBe(false);
      expect(await portOpen(Number(new URL(stack.api).port))).toBe(false);
      const dataDir = /data in (.+)\); Ctrl-C/.exec(stack.platform.stdout)?.[1] as string;
      const postgresPort = Number(await fs.readFile(path.join(dataDir, 'postgres.port'), 'utf8'));
      await expectNoPostgres(dataDir, postgresPort);
    },
    SLOW,
  );

  it(
    'leaves no runner behind when the platform is killed',
    async () => {
      const dataDir = await startedDataDir('apps-platform-runner-kill-');
      const ports = await freePorts();
      const running = await startPlatform(['--role', 'all'], baseEnv({ ...ports, DATA_DIR: dataDir }));
      const runner = listeningPid(Number(ports.RUNNER_PORT)) as number;
      expect(parentPid(runner)).toBe(running.child.pid);

      process.kill(running.child.pid as number, 'SIGKILL');
      await expect.poll(() => alive(runner), { timeout: 30_000, interval: 50 }).toBe(false);
      expect(await portOpen(Number(ports.RUNNER_PORT))).toBe(false);
      // Nothing of the group is left (PostgreSQL runs in a session of its own, adopted by the next
      // start; afterEach stops it).
      expect(await groupLeftovers(running.child)).toEqual([]);
    },
    SLOW,
  );
});
