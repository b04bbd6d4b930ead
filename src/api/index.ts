// The api role: the public listener (tenants' users, vendors, applicants) and the internal listener
// (runners only, bound to loopback by default).
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { attentionRoutes } from '../attention/index.ts';
import { activityRoutes } from '../audit/activity-routes.ts';
import { auditRoutes } from '../audit/routes.ts';
import type { TokenVerifier } from '../auth/tokens.ts';
import {
  appsHealthRoutes,
  installMeteringRecords,
  invocationRoutes,
  meteringRoutes,
  testCallRoutes,
} from '../calls/index.ts';
import { provenanceRoutes } from '../catalogue/provenance/provenance-routes.ts';
import { loadRelease, reconcileRelease } from '../catalogue/release.ts';
import { catalogueRoutes } from '../catalogue/routes.ts';
import type { Inspector } from '../catalogue/uploads.ts';
import { collectionRoutes } from '../collections/index.ts';
import type { Config } from '../config.ts';
import { CONSOLE_DIST, consoleRoutes } from '../console/routes.ts';
import type { Database } from '../db/pool.ts';
import { DocumentChecks, documentSourceOf, subjectDocumentRoutes } from '../documents/index.ts';
import { createServer } from '../http/server.ts';
import {
  installNamesOf,
  installRoutesScope,
  startUpgradeSweeps,
  sweepUpgrades,
  type UpgradeDeps,
  type UpgradeSweeps,
  upgradeDepsOf,
  upgradeTrigger,
} from '../installs/index.ts';
import { notificationRoutes } from '../notifications/index.ts';
import { DeliveryPoster, outboundWebhookRoutes } from '../outbound-webhooks/index.ts';
import { rootLoader, useTrustPolicy } from '../provenance/index.ts';
import { createRunnerClient, type RunnerClient } from '../runner/index.ts';
import {
  approvalSchemas,
  dbosRunsEngine,
  definitionApprovalRoutes,
  definitionCallers,
  definitionRoutes,
  definitionSchemas,
  type RunsEngine,
  runRoutes,
} from '../runs/index.ts';
import {
  createDocumentObjects,
  createModuleStorage,
  type ModuleStorage,
  type ObjectStore,
} from '../storage/index.ts';
import { tenantRoutes } from '../tenants/routes.ts';
import { lookupTenant } from '../tenants/service.ts';
import { callbackRoutes, installSessionRecords, webhookRoutes } from '../vendor-sessions/index.ts';
import { healthRoutes } from './health.ts';
import { documentRoutes, internalRoutes } from './internal.ts';
import { moduleServable } from './servable.ts';

export interface ApiDeps {
  config: Config;
  database: Database;
  verifier: TokenVerifier;
  logger: FastifyBaseLogger;
  /** The module store; absent: the one the settings name (createModuleStorage); null: none. */
  modules?: ModuleStorage | null;
  /** Where subjects' documents are kept; absent: the store the settings name (createDocumentObjects); null: none. */
  documentObjects?: ObjectStore | null;
  /** Checks uploaded documents (startApi makes one); absent, uploads stay pending for a sweep elsewhere. */
  documentChecks?: DocumentChecks;
  /** The runner that inspects uploads; null or absent: apps are unavailable. */
  runner?: RunnerClient | null;
  /** Where runs are enqueued (DBOS); absent: a DBOS client on the engine database (below). */
  runs?: RunsEngine;
  /** The engine's (DBOS) database; absent: DATABASE_URL. */
  engineDatabaseUrl?: string;
  /**
   * Sends outbound webhook test pings; absent: one built from the settings (WEBHOOK_ALLOW_PRIVATE_NETWORKS)
   * for this api, closed with it.
   */
  webhookPoster?: DeliveryPoster;
  /** How often the api sweeps automatic upgrades after the start-up's; absent: every five minutes. */
  upgradeSweepIntervalMs?: number;
}

/** What this api's automatic upgrades read and log with: the definitions layer answers who calls an install. */
const upgradeDeps = (deps: ApiDeps): UpgradeDeps =>
  upgradeDepsOf({
    config: deps.config,
    database: deps.database,
    callers: definitionCallers,
    logger: deps.logger,
  });

export async function buildPublicApi(deps: ApiDeps) {
  const app = await createServer({
    logger: deps.logger,
    rateLimitPerMinute: deps.config.rateLimitPerMinute,
    authFailuresPerMinute: deps.config.http.authFailuresPerMinute,
    trustProxy: deps.config.http.trustProxy,
    timeouts: httpTimeouts(deps.config),
    openApi: true,
    auth: { verifier: deps.verifier, findTenant: (id) => lookupTenant(deps.database.db, id) },
  });
  for (const schema of [...definitionSchemas, ...approvalSchemas]) app.addSchema(schema);
  await app.register(healthRoutes(deps.database));
  // The console's pages and files at /console/ (not part of the API's description).
  await app.register(consoleRoutes(CONSOLE_DIST, deps.config.consoleOidc));
  await app.register(tenantRoutes(deps.database, deps.config));
  await app.register(auditRoutes(deps.database));
  await app.register(activityRoutes(deps.database));
  await app.register(
    attentionRoutes(deps.database, {
      callers: definitionCallers,
      hostRules: upgradeDeps(deps).hostRules,
    }),
  );
  await app.register(notificationRoutes(deps.database));
  // One poster for the process's test pings: its connections are kept between them, closed with the api.
  const poster =
    deps.webhookPoster ??
    new DeliveryPoster({ allowPrivateNetworks: deps.config.webhookAllowPrivateNetworks });
  if (!deps.webhookPoster) app.addHook('onClose', () => poster.close());
  await app.register(outboundWebhookRoutes({ database: deps.database, config: deps.config, poster }));
  const storage = optionalModuleStorage(deps);
  // Trust is computed against the policy as read at start, wherever a version is shown.
  useTrustPolicy(deps.config.provenance.signers);
  await app.register(
    provenanceRoutes({
      database: deps.database,
      storage: deps.runner && storage ? storage : null,
      signatures: deps.config.appSignatures,
      roots: rootLoader(deps.config.provenance),
    }),
  );
  await app.register(
    catalogueRoutes({
      database: deps.database,
      apps: deps.runner && storage ? { storage, inspect: inspectorOf(deps.runner) } : null,
      signatures: deps.config.appSignatures,
      installs: installNamesOf(deps.database),
    }),
  );
  const installDeps = {
    database: deps.database,
    config: deps.config,
    runner: deps.runner ?? null,
    available: Boolean(deps.runner && storage),
    // The definitions layer answers who calls an install (renames, alias removal, usage).
    callers: definitionCallers,
    // A save of an install, a decision on its change or a secret stored for it moves it at once.
    upgrades: upgradeTrigger(upgradeDeps(deps)),
    // A removal reads and fails the install's vendor sessions and names its metering rows; a limits
    // record weighs its currency against the month's spend.
    records: { sessions: installSessionRecords, metering: installMeteringRecords },
  };
  // The routes that read an install: one scope that answers 503 apps_unavailable where apps are off.
  await app.register(
    installRoutesScope(installDeps, [meteringRoutes, appsHealthRoutes, testCallRoutes(installDeps)]),
  );
  await app.register(
    subjectDocumentRoutes({
      database: deps.database,
      objects: optionalDocumentObjects(deps),
      ...(deps.documentChecks ? { checks: deps.documentChecks } : {}),
    }),
  );
  // Record listings read the database alone: they answer where apps are off too.
  await app.register(invocationRoutes(deps.database));
  await app.register(callbackRoutes(deps.database));
  await app.register(
    // Without module storage the runner has no module to run: apps are off, and hand-off unavailable.
    collectionRoutes({
      database: deps.database,
      config: deps.config,
      verifier: deps.verifier,
      runner: storage ? (deps.runner ?? null) : null,
    }),
  );
  const runs = deps.runs;
  await app.register(
    webhookRoutes({
      database: deps.database,
      config: deps.config,
      runner: storage ? (deps.runner ?? null) : null,
      // A settled session's run continues at once; without an engine here, the worker's resumer moves it.
      wake: runs ? (runId, sessionId) => runs.resume(runId, sessionId) : null,
    }),
  );
  await app.register(definitionRoutes({ database: deps.database, config: deps.config }));
  await app.register(definitionApprovalRoutes({ database: deps.database, config: deps.config }));
  if (deps.runs) {
    await app.register(
      runRoutes({
        database: deps.database,
        config: deps.config,
        // Without module storage the runner has no module to run: apps are off, as for /app-installs.
        runner: storage ? (deps.runner ?? null) : null,
        engine: deps.runs,
      }),
    );
  }
  return app;
}

const httpTimeouts = (config: Config) => ({
  requestMs: config.http.requestTimeoutMs,
  connectionMs: config.http.connectionTimeoutMs,
});

/** The catalogue's view of the runner: an inspection verdict, or the runner's failure code. */
export function inspectorOf(runner: RunnerClient): Inspector {
  return async (bytes, tenantId) => {
    const result = await runner.inspect(bytes, tenantId);
    return result.ok
      ? { ok: true, verdict: result.value }
      : { ok: false, code: result.code, message: result.message };
  };
}

export async function buildInternalApi(deps: Omit<ApiDeps, 'verifier'>) {
  const app = await createServer({
    logger: deps.logger,
    bodyLimit: 64 * 1024,
    timeouts: httpTimeouts(deps.config),
  });
  await app.register(healthRoutes(deps.database));
  const modules = optionalModuleStorage(deps);
  // Without module storage there is nothing to serve: module fetches answer 404.
  if (deps.config.appRunnerToken && modules) {
    await app.register(
      internalRoutes({
        runnerToken: deps.config.appRunnerToken,
        modules,
        servable: (sha256) => moduleServable(deps.database.db, sha256),
      }),
    );
  }
  if (deps.config.appCallTokenSecret) {
    // App calls read the clean documents of the document store; without one every read answers 404.
    const objects = optionalDocumentObjects(deps);
    const documents = objects ? documentSourceOf({ database: deps.database, objects }) : undefined;
    await app.register(documentRoutes({ callTokenSecret: deps.config.appCallTokenSecret, documents }));
  }
  return app;
}

/** The store handed in, else the one the settings name (DATA_DIR/modules, S3, or null when off). */
export function optionalModuleStorage(deps: Pick<ApiDeps, 'config' | 'modules'>): ModuleStorage | null {
  return deps.modules !== undefined ? deps.modules : createModuleStorage(deps.config);
}

/** The document store handed in, else the one the settings name (DATA_DIR/documents, S3, or null when off). */
export function optionalDocumentObjects(
  deps: Pick<ApiDeps, 'config' | 'documentObjects'>,
): ObjectStore | null {
  return deps.documentObjects !== undefined ? deps.documentObjects : createDocumentObjects(deps.config);
}

/** As optionalModuleStorage, for callers that cannot do without one (tools, tests). */
export function moduleStorageOf(deps: Pick<ApiDeps, 'config' | 'modules'>): ModuleStorage {
  const storage = optionalModuleStorage(deps);
  if (!storage) throw new Error('this deployment has no module storage (MODULE_STORAGE=off)');
  return storage;
}

export interface RunningApi {
  url: string;
  internalUrl: string;
  close(): Promise<void>;
}

/** The runner client the settings name, unless the caller handed one in (or null: no runner). */
function runnerOf(deps: ApiDeps): { runner: RunnerClient | null; owned: boolean } {
  if (deps.runner !== undefined) return { runner: deps.runner, owned: false };
  const { runnerUrl, appRunnerToken } = deps.config;
  if (!runnerUrl || !appRunnerToken) return { runner: null, owned: false };
  return { runner: createRunnerClient({ baseUrl: runnerUrl, token: appRunnerToken }), owned: true };
}

/**
 * Stopping waits for requests in flight, never for clients' keep-alive connections: Fastify closes the
 * idle ones when it stops (`forceCloseConnections: 'idle'`, its default), and a response sent while it
 * stops says `connection: close`, so its connection ends with it instead of idling on for
 * keepAliveTimeout (72 s) while the stop waits (a browser on /docs keeps one).
 */
function closeConnectionsOnStop(app: FastifyInstance): void {
  let stopping = false;
  app.addHook('preClose', async () => {
    stopping = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (stopping) reply.header('connection', 'close');
    return payload;
  });
}

export async function startApi(deps: ApiDeps): Promise<RunningApi> {
  const { runner, owned } = runnerOf(deps);
  // One store for both listeners; the api closes it only when it made it.
  const modules = optionalModuleStorage(deps);
  const ownedModules = deps.modules === undefined ? modules : null;
  let sweeps: UpgradeSweeps | null = null;
  if (runner && modules) {
    const release = await loadRelease(deps.config.releaseIndex);
    await reconcileRelease(deps.database, modules, release, deps.logger);
    // Opted-in installs move to what the release brought (or back from what it withdrew), then every
    // five minutes. A failure is logged per install; the api starts all the same.
    const upgrades = upgradeDeps(deps);
    await sweepUpgrades(upgrades).catch((err: unknown) =>
      deps.logger.error({ err }, 'the start-up sweep of automatic upgrades failed'),
    );
    sweeps = startUpgradeSweeps(upgrades, deps.upgradeSweepIntervalMs);
  }
  const engineUrl = deps.engineDatabaseUrl ?? deps.config.databaseUrl;
  const ownedRuns = deps.runs === undefined && engineUrl ? dbosRunsEngine(engineUrl) : null;
  const runs = deps.runs ?? ownedRuns ?? undefined;
  // One document store for both listeners too, and the checks of what the public one takes in.
  const documentObjects = optionalDocumentObjects(deps);
  const ownedDocumentObjects = deps.documentObjects === undefined ? documentObjects : null;
  const documentChecks =
    deps.documentChecks ??
    (documentObjects
      ? new DocumentChecks({ database: deps.database, objects: documentObjects, logger: deps.logger })
      : undefined);
  const publicApp = await buildPublicApi({
    ...deps,
    runner,
    modules,
    documentObjects,
    ...(documentChecks ? { documentChecks } : {}),
    ...(runs ? { runs } : {}),
  });
  const internalApp = await buildInternalApi({ ...deps, modules, documentObjects });
  closeConnectionsOnStop(publicApp);
  closeConnectionsOnStop(internalApp);
  const url = await publicApp.listen({ host: deps.config.host, port: deps.config.port });
  // Documents left pending by a process that stopped before checking them.
  if (!deps.documentChecks) documentChecks?.startSweep();
  const internalUrl = await internalApp.listen({
    host: deps.config.internalHost,
    port: deps.config.internalPort,
  });
  return {
    url,
    internalUrl,
    close: async () => {
      await sweeps?.close();
      await Promise.all([publicApp.close(), internalApp.close()]);
      // Checks under way end before the caller closes the database.
      if (!deps.documentChecks) await documentChecks?.close();
      ownedDocumentObjects?.close?.();
      if (owned) await runner?.close();
      await ownedRuns?.close();
      ownedModules?.close?.();
    },
  };
}
