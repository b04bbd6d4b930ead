// The API description as the public api builds it, without listening or reaching a database: the
// routes are registered against an unconnected pool (nothing queries it while the document is built),
// and against a runs engine that starts nothing, so the run routes (registered only with an engine, as
// `startApi` always has one) are described too.
import pino from 'pino';
import { buildPublicApi } from '../src/api/index.ts';
import type { TokenVerifier } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/pool.ts';
import type { RunsEngine } from '../src/runs/index.ts';

const refuseEveryToken: TokenVerifier = {
  verify: async () => {
    throw new Error('no tokens are verified while describing the api');
  },
};

const describeOnly = async (): Promise<never> => {
  throw new Error('no run is started or cancelled while describing the api');
};
const noRunsEngine: RunsEngine = {
  start: describeOnly,
  resume: describeOnly,
  cancel: describeOnly,
  close: async () => {},
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
    documentObjects: null,
    runner: null,
    runs: noRunsEngine,
  });
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await database.close();
  }
}
