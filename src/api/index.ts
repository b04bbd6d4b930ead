// The api role: the public listener (tenants' users, vendors, applicants) and the internal listener
// (runners only, bound to loopback by default).
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { auditRoutes } from '../audit/routes.ts';
import type { TokenVerifier } from '../auth/tokens.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/pool.ts';
import { createServer } from '../http/server.ts';
import { FilesystemModuleStorage, type ModuleStorage } from '../storage/module-storage.ts';
import { tenantRoutes } from '../tenants/routes.ts';
import { findTenantById } from '../tenants/service.ts';
import { healthRoutes } from './health.ts';
import { internalRoutes } from './internal.ts';

export interface ApiDeps {
  config: Config;
  database: Database;
  verifier: TokenVerifier;
  logger: FastifyBaseLogger;
  modules?: ModuleStorage;
}

export async function buildPublicApi(deps: ApiDeps) {
  const app = await createServer({
    logger: deps.logger,
    rateLimitPerMinute: deps.config.rateLimitPerMinute,
    openApi: true,
    auth: { verifier: deps.verifier, findTenant: (id) => findTenantById(deps.database.db, id) },
  });
  await app.register(healthRoutes(deps.database));
  await app.register(tenantRoutes(deps.database, deps.config));
  await app.register(auditRoutes(deps.database));
  return app;
}

export async function buildInternalApi(deps: Omit<ApiDeps, 'verifier'>) {
  const app = await createServer({ logger: deps.logger, bodyLimit: 64 * 1024 });
  await app.register(healthRoutes(deps.database));
  if (deps.config.appRunnerToken) {
    await app.register(
      internalRoutes({ runnerToken: deps.config.appRunnerToken, modules: moduleStorageOf(deps) }),
    );
  }
  return app;
}

/** Modules live under DATA_DIR/modules unless the deployment hands another store in. */
export function moduleStorageOf(deps: Pick<ApiDeps, 'config' | 'modules'>): ModuleStorage {
  return deps.modules ?? new FilesystemModuleStorage(path.join(deps.config.dataDir, 'modules'));
}

export interface RunningApi {
  url: string;
  internalUrl: string;
  close(): Promise<void>;
}

export async function startApi(deps: ApiDeps): Promise<RunningApi> {
  const publicApp = await buildPublicApi(deps);
  const internalApp = await buildInternalApi(deps);
  const url = await publicApp.listen({ host: deps.config.host, port: deps.config.port });
  const internalUrl = await internalApp.listen({
    host: deps.config.internalHost,
    port: deps.config.internalPort,
  });
  return {
    url,
    internalUrl,
    close: async () => {
      await Promise.all([publicApp.close(), internalApp.close()]);
    },
  };
}
