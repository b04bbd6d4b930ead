// `platform start --role api|worker|runner|all`: the roles in one process (`all`: the runner in a child
// process, runner-child.ts, unless RUNNER_IN_PROCESS=true), stopped cleanly on a signal.
import type { Logger } from 'pino';
import { startApi } from '../api/index.ts';
import { type LocalKeys, withLocalSecrets } from '../auth/local-keys.ts';
import { localVerifier, remoteVerifier } from '../auth/tokens.ts';
import { attemptDepsOf } from '../calls/index.ts';
import { type Config, localRunnerUrl, type Role } from '../config.ts';
import { type Database, openDatabase } from '../db/pool.ts';
import { createLogger } from '../logging.ts';
import { startOutboundWebhooks } from '../outbound-webhooks/index.ts';
import { startRetentionSweep } from '../retention/retention.ts';
import { createRunnerClient, startRunnerFromConfig } from '../runner/index.ts';
import { type RunsRuntime, registerRunWorkflows, runsBackground } from '../runs/index.ts';
import { observeDatabaseGauges, startEngineMetrics, startTelemetry } from '../telemetry/index.ts';
import { ENGINE_SCHEMA, startWorker, TASK_QUEUES } from '../worker/index.ts';
import { together } from '../worker/schedule.ts';
import { recordRunningApi } from './api-url.ts';
import { type DatabaseHandle, openPlatformDatabase } from './database.ts';
import { takenPortsMessage } from './ports.ts';
import { startRunnerChild } from './runner-child.ts';
import { afterSignal, NO_STOP, type StopLevel, type StopState } from './stop-signals.ts';

interface Stop {
  name: string;
  stop: () => Promise<void>;
  /** Would outlive the process (the embedded PostgreSQL, in a session of its own): stopped even in haste. */
  outlivesProcess?: boolean;
}

/** Starts the role's parts; the command has run refuseToStart (start-checks.ts) before loading this module. */
export async function start(baseConfig: Config, role: Role): Promise<void> {
  const { config, keys } = await withLocalSecrets(baseConfig);
  const logger = createLogger({
    service: `apps-platform-${role}`,
    level: config.logLevel,
    env: config.nodeEnv,
  });
  if (config.mode === 'production' && !config.secretStoreKey) {
    logger.warn('SECRET_STORE_KEY is not set: secrets and cached values answer 503 secret_store_unavailable');
  }

  const parts = new Parts(logger);
  let startup: Promise<string[] | null> = Promise.resolve(null);
  // A signal during start-up must not exit at once: PostgreSQL (started by pg_ctl in its own session)
  // would be left running. It lets the part being started finish, starts no further part, then stops
  // every part started so far.
  installSignalHandlers(
    {
      stop: async () => {
        parts.stopRequested = true;
        await startup.catch(() => {});
        await parts.stopAll();
      },
      hurry: () => parts.stopOutliving(),
    },
    logger,
  );
  startup = startParts(config, keys, role, logger, parts);
  let lines: string[] | null;
  try {
    lines = await startup;
  } catch (error) {
    await parts.stopAll();
    // Cut short by a signal (pg_ctl takes a Ctrl-C down with the server it was starting): the signal
    // handler ends the process as a requested stop, not as a failure.
    if (parts.stopRequested) {
      logger.warn({ err: error }, 'start-up interrupted');
      return;
    }
    throw portInUse(error, config) ?? error;
  }
  if (lines) {
    process.stdout.write(
      `\nApps Platform is running (${describeMode(config)}); Ctrl-C stops it.\n${lines.join('\n')}\n\n`,
    );
  }
}

/** The parts started so far; stopped once, newest first, however many callers ask. */
class Parts {
  stopRequested = false;
  private readonly started: Stop[] = [];
  private stopping: Promise<void> | null = null;

  constructor(private readonly logger: Logger) {}

  add(part: Stop): void {
    this.started.push(part);
  }

  /**
   * A second request to stop, in haste: only what would outlive the process is stopped (again, if its
   * turn had come: stopping twice is harmless), with no wait for the other parts.
   */
  async stopOutliving(): Promise<void> {
    for (const part of this.started.filter((p) => p.outlivesProcess)) {
      await part.stop().catch((err) => this.logger.error({ err, part: part.name }, 'stop failed'));
    }
  }

  stopAll(): Promise<void> {
    this.stopping ??= (async () => {
      for (let part = this.started.pop(); part; part = this.started.pop()) {
        const { name } = part;
        await part.stop().then(
          () => this.logger.info({ part: name }, 'stopped'),
          (err) => this.logger.error({ err, part: name }, 'stop failed'),
        );
      }
    })();
    return this.stopping;
  }
}

/** Starts the role's parts in order; answers the lines to print, or null when a signal cut start-up short. */
async function startParts(
  config: Config,
  keys: LocalKeys | null,
  role: Role,
  logger: Logger,
  parts: Parts,
): Promise<string[] | null> {
  const lines: string[] = [];
  const telemetry = await startTelemetry(config.telemetry, { serviceName: `apps-platform-${role}` });
  if (telemetry) {
    // Stopped last: what the other parts record while stopping is still flushed.
    parts.add({ name: 'telemetry', stop: telemetry.shutdown });
    if (telemetry.metricsUrl) lines.push(`  Metrics    ${telemetry.metricsUrl}`);
  }
  // `--role all` runs the runner in a child process (runner-child.ts), started beside the database: it
  // needs none.
  const child = role === 'all' && !config.runnerInProcess ? startRunnerChild(config, logger) : null;
  let db: DatabaseHandle;
  try {
    db = await openPlatformDatabase(config, logger);
  } catch (error) {
    await child?.close();
    throw error;
  }
  parts.add({
    name: db.embedded ? 'embedded postgres' : 'database',
    stop: db.stop,
    outlivesProcess: db.embedded,
  });
  // Stopped after the api and the worker (their calls in flight still reach it), before the database.
  if (child) parts.add({ name: 'runner process', stop: child.close });
  if (parts.stopRequested) return null;
  if (child) {
    const url = await child.ready;
    if (config.runnerUrl === localRunnerUrl(config.runnerPort)) config.runnerUrl = url;
    lines.push(`  Runner     ${url}`);
    if (parts.stopRequested) return null;
  } else if (role === 'runner' || role === 'all') {
    const runner = await startRunnerFromConfig(config, logger.child({ role: 'runner' }));
    parts.add({ name: 'runner', stop: runner.close });
    lines.push(`  Runner     ${runner.url}`);
    if (parts.stopRequested) return null;
  }
  if (role === 'worker' || role === 'all') {
    const workerLogger = logger.child({ role: 'worker' });
    const runs = workerRuns(config, db.url, workerLogger);
    parts.add({ name: 'worker runs', stop: runs.close });
    const worker = await startWorker({
      databaseUrl: db.url,
      logger: workerLogger,
      registerWorkflows: () => registerRunWorkflows(runs.runtime),
      // The run sweep and the resumer at once (every minute, every second); the retention sweep within five
      // minutes, then every RETENTION_INTERVAL_MINUTES (docs/retention.md); outbound webhooks' trail reader
      // and sender (docs/outbound-webhooks.md).
      startBackground: () =>
        together(
          runsBackground(runs.runtime.database, workerLogger),
          startRetentionSweep({
            database: runs.runtime.database,
            logger: workerLogger,
            settings: config.retention,
          }),
          startOutboundWebhooks({
            database: runs.runtime.database,
            logger: workerLogger,
            secretStoreKey: config.secretStoreKey,
            allowPrivateNetworks: config.webhookAllowPrivateNetworks,
            limits: config.webhookSender,
            fanout: { holdMs: config.webhookTrailHoldMs },
          }),
        ),
      healthPort: config.workerHealthPort,
      executorId: config.workerExecutorId,
      queueSafetyPollMs: config.workerQueueSafetyPollMs,
      appsPerTenant: config.runnerTenantConcurrency,
      // Same interface as the api: loopback in embedded mode, every interface in production unless HOST says.
      healthHost: config.host,
      tracing: telemetry !== null,
    });
    parts.add({ name: 'worker', stop: worker.close });
    if (worker.healthUrl) lines.push(`  Worker     ${worker.healthUrl}/healthz`);
    if (telemetry) {
      const engine = await workerMetrics(config, runs.runtime.database, workerLogger, parts);
      if (engine) lines.push(`  Engine     ${engine}`);
    }
    if (parts.stopRequested) return null;
  }
  if (role === 'api' || role === 'all') {
    const database = openDatabase(db.url, { applicationName: 'apps-platform-api' });
    parts.add({ name: 'api database pool', stop: database.close });
    const verifier = config.auth.jwksUrl || !keys ? remoteVerifier(config.auth) : localVerifier(keys);
    const api = await startApi({
      config,
      database,
      verifier,
      logger: logger.child({ role: 'api' }),
      engineDatabaseUrl: db.url,
    });
    parts.add({ name: 'api', stop: api.close });
    // Where the commands of this DATA_DIR find the api (webhooks listen, app publish: api-url.ts).
    parts.add({ name: 'api address', stop: await recordRunningApi(config.dataDir, api.url, logger) });
    // A development stack receives its vendors' webhooks at its own address unless told otherwise; it is set
    // after loadConfig so the address does not join ownHosts (loopback vendors stay callable there).
    if (config.mode === 'embedded') config.webhookPublicUrl ??= api.url;
    lines.unshift(
      `  API        ${api.url}`,
      `  API docs   ${api.url}/docs`,
      `  Console    ${api.url}/console/`,
    );
    // The token line stays last: scripts wait for it (and the blank line after) as the sign of a start.
    if (keys) {
      lines.push('', `Open the console:  ${platformCommand(config, 'console')} --open`);
      lines.push(`Get a token:  ${platformCommand(config, 'token')}`);
    }
    if (parts.stopRequested) return null;
  }
  return lines;
}

/**
 * The worker's metrics beside the service's (docs/telemetry.md): the gauges read from the database, and
 * the engine's core metrics on METRICS_PORT + 1. Answers the engine metrics' address, if served.
 */
async function workerMetrics(
  config: Config,
  database: Database,
  logger: Logger,
  parts: Parts,
): Promise<string | null> {
  const onError = (err: unknown) => logger.warn({ err }, 'a metrics read failed');
  const gauges = observeDatabaseGauges(database.pool, onError);
  parts.add({ name: 'worker gauges', stop: async () => gauges.stop() });
  const port = config.telemetry.metricsPort;
  if (port === null) return null;
  const engine = await startEngineMetrics({
    port: port + 1,
    pool: database.pool,
    schema: ENGINE_SCHEMA,
    queues: TASK_QUEUES,
    serviceName: config.telemetry.serviceName ?? 'apps-platform-worker',
    onError,
  });
  parts.add({ name: 'engine metrics', stop: engine.stop });
  return engine.url;
}

/**
 * What the worker's runs work with: its own database pool, and the runner client app calls go through.
 * Apps are off without a runner (APP_RUNNER_URL and APP_RUNNER_TOKEN) or without module storage
 * (MODULE_STORAGE=off): runs then fail their call_app steps and app rules with apps_unavailable.
 */
function workerRuns(config: Config, databaseUrl: string, logger: Logger) {
  const { runnerUrl, appRunnerToken } = config;
  const database = openDatabase(databaseUrl, { applicationName: 'apps-platform-worker' });
  const appsOn = runnerUrl && appRunnerToken && config.storage.kind !== 'off';
  const runner = appsOn ? createRunnerClient({ baseUrl: runnerUrl, token: appRunnerToken }) : null;
  const runtime: RunsRuntime = {
    database,
    logger,
    attempt: runner ? attemptDepsOf(config, database, runner) : null,
    tenantConcurrency: config.runnerTenantConcurrency,
  };
  return {
    runtime,
    close: async () => {
      await runner?.close();
      await database.close();
    },
  };
}

/** A listener's port taken between the check and the listen, as one line naming the setting that chose it. */
function portInUse(error: unknown, config: Config): Error | null {
  const e = error as { code?: unknown; port?: unknown };
  if (e?.code !== 'EADDRINUSE') return null;
  const settings: [string, number | null][] = [
    ['PORT', config.port],
    ['API_INTERNAL_PORT', config.internalPort],
    ['RUNNER_PORT', config.runnerPort],
    ['WORKER_HEALTH_PORT', config.workerHealthPort],
    ['METRICS_PORT', config.telemetry.metricsPort],
    ['METRICS_PORT + 1', config.telemetry.metricsPort === null ? null : config.telemetry.metricsPort + 1],
  ];
  const setting = settings.find(([, port]) => port === e.port)?.[0];
  if (!setting) return null;
  return new Error(takenPortsMessage([{ setting, port: e.port as number }]));
}

function describeMode(config: Config): string {
  return config.mode === 'embedded' ? `embedded PostgreSQL, data in ${config.dataDir}` : 'production';
}

/** `npx platform token|console` for the example tenant, with this start's DATA_DIR when not the default. */
function platformCommand(config: Config, command: 'token' | 'console'): string {
  const defaultDir = `${process.cwd()}/.data`;
  const prefix = config.dataDir === defaultDir ? '' : `DATA_DIR=${shellQuote(config.dataDir)} `;
  return `${prefix}npx platform ${command} --tenant acme --role admin`;
}

/** The command is printed to be pasted: a DATA_DIR with spaces or shell characters must stay one word. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * SIGINT and SIGTERM stop the platform; a repeat of the same signal within a moment (npm's forwarded copy
 * of a Ctrl-C) is the same request, any other hurries it (stop-signals.ts).
 */
function installSignalHandlers(
  stops: { stop: () => Promise<void>; hurry: () => Promise<void> },
  logger: Logger,
): void {
  let state: StopState = NO_STOP;
  const acts: Record<StopLevel, (signal: NodeJS.Signals) => void> = {
    stop: (signal) => {
      logger.info(`received ${signal}, stopping`);
      // Keep the loop alive until every part has stopped, whatever their handles do meanwhile.
      const keepAlive = setInterval(() => {}, 1000);
      void stops.stop().then(() => {
        clearInterval(keepAlive);
        process.exit(0);
      });
    },
    hurry: (signal) => {
      logger.warn(
        `received ${signal} again: stopping PostgreSQL now and exiting without waiting for the other parts`,
      );
      void stops.hurry().finally(() => process.exit(1));
    },
    exit: () => process.exit(1),
  };
  const onSignal = (signal: NodeJS.Signals) => {
    const next = afterSignal(state, { signal, at: performance.now() });
    state = next.state;
    if (next.act) acts[next.act](signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
