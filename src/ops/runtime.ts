// What every operator command runs inside (docs/operations.md "The ops command"): the deployment's own
// database, checked not to be behind the command's migrations, and the way a command's outcome becomes
// an exit code. 0 done; 1 failed, with the error's code first on standard error (app_blocked, conflict,
// not_found, ...); 2 a usage error.
import type { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { openDatabaseAsFound } from '../cli/database.ts';
import { type Config, loadConfig } from '../config.ts';
import { schemaBehind } from '../db/migrate.ts';
import { type Database, openDatabase } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
import { useTrustPolicy } from '../provenance/index.ts';
import { json } from './output.ts';

/** Where a command reads and writes: the process's own streams, or a test's. */
export interface OpsIO {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable & { isTTY?: boolean };
  /** The environment the settings are read from (DATABASE_URL, DATA_DIR, ...). */
  env: Record<string, string | undefined>;
  /** Standard input, for a module read from `-`. */
  stdin?: NodeJS.ReadableStream;
}

/** What a command's action gets: the database, the settings, where to print, and --json. */
export interface OpsSession {
  database: Database;
  config: Config;
  io: OpsIO;
  json: boolean;
  logger: Logger;
  /** Prints a command's answer: `value` as JSON with --json, else the human text `text()` makes. */
  print(value: unknown, text: () => string): void;
  /** A long command's progress, on a terminal only (standard error, rewritten in place). */
  progress(label: string, done: number, total: number): void;
}

/** A usage error found after parsing (a bad value commander could not judge): exit code 2. */
export class OpsUsageError extends Error {}

/** The database is behind the command's migrations: exit 1 with code schema_behind. */
const schemaBehindError = () =>
  new OpsFailure(
    'schema_behind',
    "the database's schema is behind this command's migrations: start the platform of this version, or run `platform migrate`, first",
  );

/** A failure a command reports with its own code (beside the API's codes an ApiError carries). */
export class OpsFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** --by: the operator's name, 1 to 100 characters, recorded as given. */
export function operatorName(by: string): string {
  const length = [...by].length;
  if (length < 1 || length > 100) throw new OpsUsageError('--by: a name of 1 to 100 characters');
  return by;
}

export { operatorActor } from '../audit/actor.ts';

/** Opens the deployment's database (refusing one behind the migrations), runs `action`, closes it. */
export async function withSession<T>(
  io: OpsIO,
  options: { json?: boolean },
  action: (session: OpsSession) => Promise<T>,
): Promise<T> {
  const config = loadConfig(io.env as NodeJS.ProcessEnv);
  // Trust is shown as this run's settings compute it (the policy as read at start).
  useTrustPolicy(config.provenance.signers);
  const handle = await openDatabaseAsFound(config);
  try {
    if (await schemaBehind(handle.url)) throw schemaBehindError();
    const database = openDatabase(handle.url, { max: 2, applicationName: 'apps-platform-ops' });
    try {
      return await action(sessionOf(database, config, io, options.json === true));
    } finally {
      await database.close();
    }
  } finally {
    await handle.stop();
  }
}

function sessionOf(database: Database, config: Config, io: OpsIO, asJson: boolean): OpsSession {
  return {
    database,
    config,
    io,
    json: asJson,
    // Logs of the services a command calls go to standard error, warnings and worse only.
    logger: pino({ level: 'warn' }, io.stderr),
    print(value, text) {
      io.stdout.write(asJson ? json(value) : text());
    },
    progress(label, done, total) {
      if (asJson || !io.stderr.isTTY) return;
      io.stderr.write(`\r${label} ${done}/${total}${done >= total ? '\n' : ''}`);
    },
  };
}

/** The exit code of a command's failure, with the line (or JSON) it writes on standard error. */
export function failureOf(error: unknown, asJson: boolean): { code: 1 | 2; text: string } {
  if (error instanceof OpsUsageError) return { code: 2, text: `ops: ${error.message}\n` };
  const known = error instanceof ApiError || error instanceof OpsFailure;
  const code = known ? error.code : 'internal';
  const message = error instanceof Error ? error.message : String(error);
  const details = known ? error.details : undefined;
  if (asJson) return { code: 1, text: json({ error: { code, message, ...(details ? { details } : {}) } }) };
  const issues = (details?.issues as { path: string; message: string }[] | undefined) ?? [];
  const lines = [`${code}: ${message}`, ...issues.map((issue) => `  ${issue.path}: ${issue.message}`)];
  return { code: 1, text: `${lines.join('\n')}\n` };
}
