// `platform webhooks listen` as a newcomer runs it beside a platform started on other ports than the
// default: with no --api-url it finds the api that the clone's DATA_DIR names (src/cli/api-url.ts), and a
// failure to reach an api names the URL it tried. The real commands, as child processes.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RUNNING_API_FILE } from '../../src/cli/api-url.ts';
import { freePort } from '../support/free-port.ts';
import {
  BIN,
  baseEnv,
  cleanUpProcesses,
  freePorts,
  type Running,
  removeTempDirs,
  run,
  signal,
  startedDataDir,
  startPlatform,
  startServingCommand,
  tempDir,
} from '../support/processes.ts';

const SLOW = 240_000;

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

describe('platform webhooks listen', () => {
  it(
    'finds the running platform from DATA_DIR alone, creates its endpoint and deletes it on Ctrl-C',
    async () => {
      const dataDir = await startedDataDir('apps-platform-listen-');
      const ports = await freePorts();
      const platformEnv = baseEnv({
        DATA_DIR: dataDir,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        ...ports,
        WEBHOOK_TRAIL_HOLD_MS: '0',
      });
      let platform: Running | null = await startPlatform([], platformEnv);
      try {
        const api = `http://127.0.0.1:${ports.PORT}`;
        expect(platform.stdout).toContain(`API        ${api}`);
        const record = JSON.parse(await fs.readFile(path.join(dataDir, RUNNING_API_FILE), 'utf8'));
        expect(record).toEqual({ pid: platform.child.pid, url: api });

        // A second terminal of the same clone: DATA_DIR, and none of the platform's port settings.
        const terminal = baseEnv({ DATA_DIR: dataDir });
        const token = (await run(['token', '--tenant', 'acme', '--role', 'admin'], terminal)).stdout.trim();
        const listener = await startServingCommand(
          BIN,
          ['webhooks', 'listen', '--token', token, '--events', 'run.completed'],
          terminal,
          'webhooks listen',
        );
        const endpointId = /as endpoint (\S+) for run\.completed; Ctrl-C stops\n/.exec(
          listener.stdout(),
        )?.[1];
        expect(endpointId, listener.stderr()).toMatch(/^[0-9a-f-]{36}$/);
        const listed = await fetch(`${api}/webhook-endpoints/${endpointId}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(listed.status).toBe(200);

        signal(listener.child, 'SIGINT');
        const stopped = await listener.exited;
        expect(stopped.stdout).toContain(`endpoint ${endpointId} deleted\n`);
        expect(stopped.code).toBe(0);

        signal(platform, 'SIGINT');
        await platform.exited;
        platform = null;
        // Stopped: the record is gone, and the next command falls back to HOST and PORT.
        await expect(fs.access(path.join(dataDir, RUNNING_API_FILE))).rejects.toThrow();
      } finally {
        if (platform) signal(platform, 'SIGINT');
      }
    },
    SLOW,
  );

  it.each([
    ['--api-url', (url: string) => ({ args: ['--api-url', url], env: {} }), '--api-url'],
    [
      '--api (the older name, kept for a release)',
      (url: string) => ({ args: ['--api', url], env: {} }),
      '--api-url',
    ],
    ['API_URL', (url: string) => ({ args: [], env: { API_URL: url } }), 'API_URL'],
  ])('an api that does not answer at %s: exit 1, naming the URL and where it came from', async (_case, given, from) => {
    const dataDir = await tempDir('apps-platform-listen-none-');
    const url = `http://127.0.0.1:${await freePort()}`;
    const { args, env } = given(url);
    const result = await run(
      ['webhooks', 'listen', '--token', 'x', ...args],
      baseEnv({ DATA_DIR: dataDir, ...env }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `platform: cannot reach the platform at ${url} (ECONNREFUSED; the URL from ${from}): is it running? --api-url or API_URL names another\n`,
    );
  });

  it('nothing running and nothing said: HOST and PORT (PORT as set), named in the failure', async () => {
    const dataDir = await tempDir('apps-platform-listen-port-');
    const port = await freePort();
    const result = await run(
      ['webhooks', 'listen', '--token', 'x'],
      baseEnv({ DATA_DIR: dataDir, PORT: String(port) }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `cannot reach the platform at http://127.0.0.1:${port} (ECONNREFUSED; the URL from HOST and PORT)`,
    );
  });
});
