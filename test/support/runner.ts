// Starts the real runner service against a test platform's internal listener, and stores modules
// where that listener serves them (capped like an upload would be), under a platform version row: the
// listener serves only modules that a published (or still running) version uses.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { moduleStorageOf } from '../../src/api/index.ts';
import { appVersions } from '../../src/catalogue/tables.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/pool.ts';
import type { Manifest } from '../../src/module/manifest.ts';
import { capMemory } from '../../src/module/wasm.ts';
import type { LookupAll } from '../../src/runner/egress/http.ts';
import { startRunnerFromConfig } from '../../src/runner/index.ts';
import type { TestPlatform } from './platform.ts';
import { timed } from './profile.ts';

export const RUNNER_TOKEN = 'test-runner-token';

type VersionStatus = 'uploaded' | 'published' | 'withdrawn';

export interface TestRunner {
  url: string;
  cacheDir: string;
  /**
   * Stores a module (memory capped to memoryMiB) with a platform version of the given status using it
   * (none: the bytes alone), and answers its sha256.
   */
  store(bytes: Uint8Array, memoryMiB?: number, status?: VersionStatus | null): Promise<string>;
  post(route: string, body: unknown, token?: string | null): Promise<Response>;
  close(): Promise<void>;
}

/** A platform version row using the module of that hash (what makes the internal listener serve it). */
export async function insertVersionRow(
  database: Database,
  sha256: string,
  status: VersionStatus = 'published',
): Promise<void> {
  await database.db
    .insert(appVersions)
    .values({
      publisher: 'platform',
      tenantId: null,
      name: `stored-${sha256.slice(0, 16)}`,
      version: '1.0.0',
      status,
      sha256,
      sizeBytes: 0,
      manifest: {} as Manifest,
    })
    .onConflictDoNothing();
}

/** A test runner's settings: its own cache directory, the platform's internal listener, then `env`. */
async function runnerSettings(platform: TestPlatform, env: Record<string, string>) {
  const cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-runner-'));
  const settings = {
    RUNNER_PORT: '0',
    HOST: '127.0.0.1',
    APP_RUNNER_TOKEN: RUNNER_TOKEN,
    APP_RUNNER_CACHE_DIR: cacheDir,
    API_INTERNAL_URL: platform.internalUrl,
    ...env,
  };
  return { cacheDir, settings };
}

export async function startTestRunner(
  platform: TestPlatform,
  env: Record<string, string> = {},
  egress: { lookup?: LookupAll; allowPrivateNetworks?: boolean } = {},
): Promise<TestRunner> {
  const { cacheDir, settings } = await runnerSettings(platform, env);
  const config = loadConfig({ DATABASE_URL: 'postgres://unused/unused', ...settings });
  const runner = await timed('starting', () =>
    startRunnerFromConfig(config, pino({ level: 'silent' }), egress),
  );
  return {
    url: runner.url,
    cacheDir,
    store: storeFor(platform),
    post: poster(runner.url),
    async close() {
      await runner.close();
      await fs.rm(cacheDir, { recursive: true, force: true });
    },
  };
}

function storeFor(platform: TestPlatform): TestRunner['store'] {
  const storage = moduleStorageOf(platform);
  return async (bytes, memoryMiB = 16, status = 'published') => {
    const capped = capMemory(bytes, memoryMiB);
    if (!('bytes' in capped)) throw new Error(capped.message);
    const sha256 = await storage.put(capped.bytes);
    if (status) await insertVersionRow(platform.database, sha256, status);
    return sha256;
  };
}

const poster =
  (url: string): TestRunner['post'] =>
  (route, body, token = RUNNER_TOKEN) =>
    fetch(`${url}${route}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });

export interface RunnerProcess extends TestRunner {
  pid: number;
  /** The OS threads of the process now. */
  osThreads(): number;
  /** Resident memory now and at its peak (VmRSS, VmHWM), in MiB. */
  memory(): { rssMiB: number; peakMiB: number };
  /** Whether the process is still running. */
  alive(): boolean;
}

const ENTRY = path.join(import.meta.dirname, 'runner-process.ts');

/** The real runner (runner-process.ts) in a child process with these settings, once it listens. */
export function spawnRunner(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; exited: () => boolean }> {
  return timed('starting', () => spawnRunnerProcess(env));
}

async function spawnRunnerProcess(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; exited: () => boolean }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n')[0];
      if (text.includes('\n') && line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`the runner process exited (${code}) before listening`)));
  });
  return { child, url, exited: () => exited };
}

/** The real runner in a child process (private networks allowed), serving the platform's modules. */
export async function startRunnerProcess(
  platform: TestPlatform,
  env: Record<string, string> = {},
): Promise<RunnerProcess> {
  const { cacheDir, settings } = await runnerSettings(platform, env);
  const { child, url, exited } = await spawnRunner(settings);
  const pid = child.pid as number;
  const status = (field: string) => {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(
      new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'),
    );
    return Number(line?.[1] ?? 0) / 1024;
  };
  return {
    url,
    cacheDir,
    pid,
    store: storeFor(platform),
    post: poster(url),
    osThreads: () => readdirSync(`/proc/${pid}/task`).length,
    memory: () => ({ rssMiB: status('VmRSS'), peakMiB: status('VmHWM') }),
    alive: () => !exited(),
    async close() {
      if (!exited()) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await gone;
      }
      await fs.rm(cacheDir, { recursive: true, force: true });
    },
  };
}

export interface RunnerHealth {
  inFlight: number;
  cachedModules: number;
  warmPlugins: number;
  threads: number;
  threadsReplaced: number;
}

/**
 * Polls a runner's GET /health until it shows the state asked for: how tests wait for calls to be in
 * flight, rather than sleeping. Bounded, so a runner that never gets there fails the test.
 */
export async function waitForRunner(runnerUrl: string, until: (health: RunnerHealth) => boolean) {
  const giveUpAt = Date.now() + 10_000;
  while (Date.now() < giveUpAt) {
    const health = (await (await fetch(`${runnerUrl}/health`)).json()) as RunnerHealth;
    if (until(health)) return health;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the runner did not reach the state waited for within 10 s');
}
