// Where the platform's database is: DATABASE_URL in production, else embedded PostgreSQL under DATA_DIR.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { lockHolder } from '../db/data-dir-lock.ts';
import { ensureDatabase, runningServerUrl, startEmbeddedPostgres } from '../db/embedded.ts';
import { applyMigrations } from '../db/migrate.ts';
import { databaseAnswers } from '../db/probe.ts';

export const EMBEDDED_DATABASE = 'platform';

export interface DatabaseHandle {
  url: string;
  embedded: boolean;
  /** Stops the embedded server when this process started it; otherwise only lets go of it. */
  stop(): Promise<void>;
}

const nothingToStop = async () => {};

/**
 * `platform start`: starts (embedded) or names (production) the database, with migrations applied. A
 * server that a killed platform left running in DATA_DIR is taken over.
 */
export async function openPlatformDatabase(config: Config, logger?: Logger): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    await applyMigrations(config.databaseUrl);
    return { url: config.databaseUrl, embedded: false, stop: nothingToStop };
  }
  return startEmbedded(config, { adoptOrphan: true, logger });
}

/**
 * `platform token` and `platform migrate`: the database a running platform uses (found from DATA_DIR
 * itself, and left running), else the embedded one started for the command and stopped after it.
 * Migrations are applied either way (under their advisory lock, so a starting platform and the command
 * take turns).
 */
export async function openDatabaseForCommand(config: Config): Promise<DatabaseHandle> {
  if (config.databaseUrl) return openPlatformDatabase(config);
  const running = await runningEmbeddedUrl(config);
  if (running === null) return startEmbedded(config, { adoptOrphan: false });
  await prepare(running);
  return { url: running(EMBEDDED_DATABASE), embedded: true, stop: nothingToStop };
}

/**
 * The operator's commands: the database as it is, never migrated (a schema behind the command's migrations
 * is the caller's to refuse). A running platform's embedded server is used and left running; otherwise the
 * embedded server under DATA_DIR is started for the command and stopped after it.
 */
export async function openDatabaseAsFound(config: Config): Promise<DatabaseHandle> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: false, stop: nothingToStop };
  const running = await runningEmbeddedUrl(config);
  if (running !== null) return { url: running(EMBEDDED_DATABASE), embedded: true, stop: nothingToStop };
  const server = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.embeddedPostgresPort,
    adoptOrphan: false,
    onNotice: noticeOnStderr,
  });
  return { url: server.url(EMBEDDED_DATABASE), embedded: true, stop: server.stop };
}

/** A command's notices go to stderr: its stdout is its answer (a token, JSON). */
function noticeOnStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * The running embedded server's URLs, from the pid file PostgreSQL keeps in DATA_DIR, if it answers. While a
 * platform holds DATA_DIR the server is its own: a slow answer (a busy machine, the connection's password
 * exchange) is waited for, never taken for no server, which would try to start one and be refused the lock.
 */
async function runningEmbeddedUrl(config: Config): Promise<((database: string) => string) | null> {
  const url = await runningServerUrl(config.dataDir);
  if (url === null) return null;
  const held = (await lockHolder(config.dataDir)) !== null;
  return (await databaseAnswers(url('postgres'), held ? HELD_ANSWER_MS : 1000)) ? url : null;
}

/** How long a command waits for the database of a platform running in DATA_DIR to answer. */
const HELD_ANSWER_MS = 30_000;

async function startEmbedded(
  config: Config,
  options: { adoptOrphan: boolean; logger?: Logger },
): Promise<DatabaseHandle> {
  const server = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.embeddedPostgresPort,
    adoptOrphan: options.adoptOrphan,
    onLog: (line) => options.logger?.debug({ component: 'postgres' }, line.trim()),
    onNotice: (line) =>
      options.logger ? options.logger.warn({ component: 'postgres' }, line) : noticeOnStderr(line),
  });
  if (server.leftover && options.adoptOrphan) {
    options.logger?.warn(
      { component: 'postgres', dataDir: config.dataDir },
      'PostgreSQL was still running in DATA_DIR, left by a platform that did not stop it; this one takes it over and stops it when it stops',
    );
  }
  try {
    await prepare(server.url);
    return { url: server.url(EMBEDDED_DATABASE), embedded: true, stop: server.stop };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** The platform's database on an embedded server: created when missing, migrated. */
async function prepare(url: (database: string) => string): Promise<void> {
  await ensureDatabase(url('postgres'), EMBEDDED_DATABASE);
  await applyMigrations(url(EMBEDDED_DATABASE));
}
