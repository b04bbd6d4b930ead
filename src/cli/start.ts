// `platform start --role api|worker|runner|all`: the roles in one process, stopped cleanly on a signal.
import { startApi } from '../api/index.ts';
import { withLocalSecrets } from '../auth/local-keys.ts';
import { localVerifier, remoteVerifier } from '../auth/tokens.ts';
import { type Config, missingProductionSettings, type Role } from '../config.ts';
import { openDatabase } from '../db/pool.ts';
import { createLogger } from '../logging.ts';
import { startRunner } from '../runner/service.ts';
import { startWorker } from '../worker/index.ts';
import { openPlatformDatabase } from './database.ts';

interface Stop {
  name: string;
  stop: () => Promise<void>;
}

export async function start(baseConfig: Config, role: Role): Promise<void> {
  const missing = missingProductionSettings(baseConfig, role);
  if (missing.length > 0) throw new Error(`settings required in production: ${missing.join(', ')}`);
  const { config, keys } = await withLocalSecrets(baseConfig);
  const logger = createLogger({
    service: `apps-platform-${role}`,
    level: config.logLevel,
    env: config.nodeEnv,
  });
  if (config.mode === 'production' && !config.secretStoreKey) {
    logger.warn('SECRET_STORE_KEY is not set: secrets and cached values answer 503 secret_store_unavailable');
  }

  const stops: Stop[] = [];
  const stopAll = async () => {
    for (const { name, stop } of stops.reverse()) {
      await stop().then(
        () => logger.info({ part: name }, 'stopped'),
        (err) => logger.error({ err, part: name }, 'stop failed'),
      );
    }
  };
  installSignalHandlers(stopAll, logger);

  try {
    const db = await openPlatformDatabase(config, logger);
    stops.push({ name: db.embedded ? 'embedded postgres' : 'database', stop: db.stop });
    const lines: string[] = [];
    if (role === 'runner' || role === 'all') {
      const runner = await startRunner({
        host: config.mode === 'embedded' ? '127.0.0.1' : config.host,
        port: config.runnerPort,
        cacheDir: config.runnerCacheDir,
        concurrency: config.runnerConcurrency,
        logger: logger.child({ role: 'runner' }),
      });
      stops.push({ name: 'runner', stop: runner.close });
      lines.push(`  Runner     ${runner.url}`);
    }
    if (role === 'worker' || role === 'all') {
      const worker = await startWorker({
        databaseUrl: db.url,
        logger: logger.child({ role: 'worker' }),
        healthPort: config.workerHealthPort,
      });
      stops.push({ name: 'worker', stop: worker.close });
      if (worker.healthUrl) lines.push(`  Worker     ${worker.healthUrl}/healthz`);
    }
    if (role === 'api' || role === 'all') {
      const database = openDatabase(db.url, { applicationName: 'apps-platform-api' });
      stops.push({ name: 'api database pool', stop: database.close });
      const verifier = config.auth.jwksUrl || !keys ? remoteVerifier(config.auth) : localVerifier(keys);
      const api = await startApi({ config, database, verifier, logger: logger.child({ role: 'api' }) });
      stops.push({ name: 'api', stop: api.close });
      lines.unshift(`  API        ${api.url}`, `  API docs   ${api.url}/docs`);
      if (keys) lines.push('', `Get a token:  ${tokenCommand(config)}`);
    }
    process.stdout.write(
      `\nApps Platform is running (${describeMode(config)}); Ctrl-C stops it.\n${lines.join('\n')}\n\n`,
    );
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function describeMode(config: Config): string {
  return config.mode === 'embedded' ? `embedded PostgreSQL, data in ${config.dataDir}` : 'production';
}

function tokenCommand(config: Config): string {
  const defaultDir = `${process.cwd()}/.data`;
  const prefix = config.dataDir === defaultDir ? '' : `DATA_DIR=${config.dataDir} `;
  return `${prefix}npx platform token --tenant acme --role admin`;
}

function installSignalHandlers(stopAll: () => Promise<void>, logger: { info(msg: string): void }): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1); // a second signal does not wait
    stopping = true;
    logger.info(`received ${signal}, stopping`);
    // Keep the loop alive until every part has stopped, whatever their handles do meanwhile.
    const keepAlive = setInterval(() => {}, 1000);
    void stopAll().then(() => {
      clearInterval(keepAlive);
      process.exit(0);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
