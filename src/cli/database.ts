// Where the platform's database is: DATABASE_URL in production, else embedded PostgreSQL under DATA_DIR.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { ensureDatabase, startEmbeddedPostgres } from '../db/embedded.ts';
import { applyMigrations } from '../db/migrate.ts';

export const EMBEDDED_DATABASE = 'platform';

export interface DatabaseHandle {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export function embeddedUrl(config: Config, database = EMBEDDED_DATABASE): string {
  return `postgres://postgres:postgres@127.0.0.1:${config.embeddedPostgresPort}/${database}`;
}

/** Starts (embedded) or names (production) the database, with migrations applied. */
export async function openPlatformDatabase(config: Config, logger?: Logger): Promise<DatabaseHandle> {
  if (config.databaseUrl) {
    await applyMigrations(config.databaseUrl);
    return { url: config.databaseUrl, embedded: false, stop: async () => {} };
  }
  const server = await startEmbeddedPostgres({
    dataDir: config.dataDir,
    port: config.embeddedPostgresPort,
    onLog: (line) => logger?.debug({ component: 'postgres' }, line.trim()),
  });
  try {
    await ensureDatabase(server.url('postgres'), EMBEDDED_DATABASE);
    const url = server.url(EMBEDDED_DATABASE);
    await applyMigrations(url);
    return { url, embedded: true, stop: () => server.stop() };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
