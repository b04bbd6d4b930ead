// The API description as the public api builds it, without listening or reaching a database: the
// routes are registered against an unconnected pool (nothing queries it while the document is built).
import pino from 'pino';
import { buildPublicApi } from '../src/api/index.ts';
import type { TokenVerifier } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/pool.ts';

const refuseEveryToken: TokenVerifier = {
  verify: async () => {
    throw new Error('no tokens are verified while describing the api');
  },
};

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({
    DATABASE_URL: 'postgres://describe@127.0.0.1:1/describe',
    LOG_LEVEL: 'silent',
  });
  const database = openDatabase(config.databaseUrl as string, { max: 1 });
  const app = await buildPublicApi({
    config,
    database,
    verifier: refuseEveryToken,
    logger: pino({ level: 'silent' }),
    modules: null,
    runner: null,
  });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await database.close();
  }
}
