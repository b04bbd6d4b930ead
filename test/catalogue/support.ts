// A platform whose api inspects uploads with a real runner, and module variants to upload.
import pino from 'pino';
import type { DocumentSource } from '../../src/api/internal.ts';
import { loadConfig } from '../../src/config.ts';
import { startRunnerFromConfig } from '../../src/runner/index.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { freePort } from '../support/free-port.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN } from '../support/runner.ts';

export interface CataloguePlatform extends TestPlatform {
  runnerUrl: string;
  upload(bytes: Uint8Array, token?: string): Promise<Response>;
}

export interface CataloguePlatformOptions {
  documents?: DocumentSource;
  /** More of the runner's settings (its concurrency, its cache directory…). */
  runnerEnv?: Record<string, string>;
  /** The URL the api reaches the runner by, given the runner's own (a link in between, for one). */
  runnerUrlFor?: (runnerUrl: string) => Promise<string>;
}

export async function startCataloguePlatform(
  env: Record<string, string> = {},
  options: CataloguePlatformOptions = {},
): Promise<CataloguePlatform> {
  const internalPort = await freePort();
  const runner = await startRunnerFromConfig(
    loadConfig({
      DATABASE_URL: 'postgres://unused/unused',
      RUNNER_PORT: '0',
      HOST: '127.0.0.1',
      APP_RUNNER_TOKEN: RUNNER_TOKEN,
      API_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
      // The runner and the api must agree on it (apps calling a vendor double on 127.0.0.1).
      ...(env.APP_RUNNER_ALLOW_PRIVATE_NETWORKS
        ? { APP_RUNNER_ALLOW_PRIVATE_NETWORKS: env.APP_RUNNER_ALLOW_PRIVATE_NETWORKS }
        : {}),
      ...options.runnerEnv,
    }),
    pino({ level: 'silent' }),
  );
  const platform = await startTestPlatform(
    {
      APP_RUNNER_TOKEN: RUNNER_TOKEN,
      APP_RUNNER_URL: options.runnerUrlFor ? await options.runnerUrlFor(runner.url) : runner.url,
      API_INTERNAL_PORT: String(internalPort),
      ...env,
    },
    { documents: options.documents },
  );
  return {
    ...platform,
    runnerUrl: runner.url,
    upload: async (bytes, token) =>
      platform.fetch('/apps/uploads', {
        method: 'POST',
        headers: { 'content-type': 'application/wasm' },
        body: bytes,
        token: token ?? (await platform.token()),
      }),
    async close() {
      await platform.close();
      await runner.close();
    },
  };
}

/** The echo fixture under another name and version (and, with extra, different bytes). */
export function appModule(name: string, version: string, extra = ''): Promise<Uint8Array> {
  return buildFixture('echo', {
    '"name":"echo","version":"1.0.0"': `"name":"${name}","version":"${version}"`,
    '"hosts":["api.vendor.test"]': `"hosts":["api.vendor.test"${extra ? `,"${extra}"` : ''}]`,
  });
}
