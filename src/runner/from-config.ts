// The runner role from the deployment's settings.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { EgressSettings } from './egress/context.ts';
import { AgentPool } from './egress/pool.ts';
import { aiFor } from './host/ai.ts';
import { httpRequestFor } from './host/http.ts';
import { startRunner } from './service.ts';

export async function startRunnerFromConfig(
  config: Config,
  logger: FastifyBaseLogger,
  egress: Partial<EgressSettings> = {},
) {
  if (!config.appRunnerToken) throw new Error('APP_RUNNER_TOKEN is required by the runner');
  const agents = egress.agents ?? new AgentPool({ keepAliveMs: config.runnerKeepAliveMs });
  const settings: EgressSettings = {
    agents,
    allowPrivateNetworks: egress.allowPrivateNetworks ?? config.allowPrivateNetworks,
    lookup: egress.lookup,
  };
  const runner = await startRunner({
    host: config.mode === 'embedded' ? '127.0.0.1' : config.host,
    port: config.runnerPort,
    cacheDir: config.runnerCacheDir,
    concurrency: config.runnerConcurrency,
    tenantConcurrency: config.runnerTenantConcurrency,
    warmPlugins: config.runnerWarmPlugins,
    warmIdleMs: config.runnerWarmIdleMs,
    startLimitMs: config.runnerStartLimitMs,
    runnerToken: config.appRunnerToken,
    apiInternalUrl: config.apiInternalUrl,
    logger,
    hostFunctions: { httpRequest: httpRequestFor(settings), ai: aiFor(settings) },
  });
  return {
    url: runner.url,
    close: async () => {
      await runner.close();
      await agents.close();
    },
  };
}
