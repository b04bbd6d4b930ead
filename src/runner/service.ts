// The runner role's HTTP service. This foundation serves its health; the module routes
// (/v1/inspect, /v1/invoke, /v1/webhooks/handle, /v1/handoff) arrive with the runner issue.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger } from 'fastify';
import { Type } from 'typebox';
import { createServer } from '../http/server.ts';
import { PLATFORM_VERSION } from '../version.ts';

export interface RunnerOptions {
  host: string;
  port: number;
  cacheDir: string;
  concurrency: number;
  logger: FastifyBaseLogger;
}

const RunnerHealth = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  version: Type.String(),
  inFlight: Type.Integer(),
  concurrency: Type.Integer(),
  cachedModules: Type.Integer(),
  warmPlugins: Type.Integer(),
});

/** Whether the module cache directory takes a write (the readiness condition besides capacity). */
export async function cacheWritable(cacheDir: string): Promise<boolean> {
  try {
    await fs.mkdir(cacheDir, { recursive: true });
    const probe = path.join(cacheDir, `.probe-${process.pid}`);
    await fs.writeFile(probe, '');
    await fs.rm(probe);
    return true;
  } catch {
    return false;
  }
}

async function cachedModuleCount(cacheDir: string): Promise<number> {
  try {
    return (await fs.readdir(cacheDir)).filter((name) => name.endsWith('.wasm')).length;
  } catch {
    return 0;
  }
}

function healthRoutes(options: RunnerOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    const snapshot = async (status: 'ok' | 'unavailable') => ({
      status,
      version: PLATFORM_VERSION,
      inFlight: 0,
      concurrency: options.concurrency,
      cachedModules: await cachedModuleCount(options.cacheDir),
      warmPlugins: 0,
    });
    const config = { public: true, rateLimit: false } as const;
    app.get('/health', { config, schema: { response: { 200: RunnerHealth } } }, async () => snapshot('ok'));
    app.get(
      '/health/ready',
      { config, schema: { response: { 200: RunnerHealth, 503: RunnerHealth } } },
      async (_request, reply) => {
        const ready = await cacheWritable(options.cacheDir);
        return reply.status(ready ? 200 : 503).send(await snapshot(ready ? 'ok' : 'unavailable'));
      },
    );
  };
}

export async function startRunner(options: RunnerOptions) {
  const app = await createServer({ logger: options.logger });
  await app.register(healthRoutes(options));
  const url = await app.listen({ host: options.host, port: options.port });
  return { url, close: () => app.close() };
}
