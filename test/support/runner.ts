// Starts the real runner service against a test platform's internal listener, and stores modules
// where that listener serves them (capped like an upload would be).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { moduleStorageOf } from '../../src/api/index.ts';
import { loadConfig } from '../../src/config.ts';
import { capMemory } from '../../src/module/wasm.ts';
import type { LookupAll } from '../../src/runner/egress/http.ts';
import { startRunnerFromConfig } from '../../src/runner/index.ts';
import type { TestPlatform } from './platform.ts';

export const RUNNER_TOKEN = 'test-runner-token';

export interface TestRunner {
  url: string;
  cacheDir: string;
  /** Stores a module (memory capped to memoryMiB) and answers its sha256. */
  store(bytes: Uint8Array, memoryMiB?: number): Promise<string>;
  post(route: string, body: unknown, token?: string | null): Promise<Response>;
  close(): Promise<void>;
}

export async function startTestRunner(
  platform: TestPlatform,
  env: Record<string, string> = {},
  egress: { lookup?: LookupAll; allowPrivateNetworks?: boolean } = {},
): Promise<TestRunner> {
  const cacheDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-runner-'));
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused/unused',
    RUNNER_PORT: '0',
    HOST: '127.0.0.1',
    APP_RUNNER_TOKEN: RUNNER_TOKEN,
    APP_RUNNER_CACHE_DIR: cacheDir,
    API_INTERNAL_URL: platform.internalUrl,
    ...env,
  });
  const runner = await startRunnerFromConfig(config, pino({ level: 'silent' }), egress);
  const storage = moduleStorageOf(platform);
  return {
    url: runner.url,
    cacheDir,
    async store(bytes, memoryMiB = 16) {
      const capped = capMemory(bytes, memoryMiB);
      if (!('bytes' in capped)) throw new Error(capped.message);
      return storage.put(capped.bytes);
    },
    post: (route, body, token = RUNNER_TOKEN) =>
      fetch(`${runner.url}${route}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      }),
    async close() {
      await runner.close();
      await fs.rm(cacheDir, { recursive: true, force: true });
    },
  };
}
