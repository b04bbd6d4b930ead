import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { startApi } from '../src/api/index.ts';
import { readOrCreateLocalSecrets } from '../src/auth/local-keys.ts';
import { localVerifier } from '../src/auth/tokens.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/pool.ts';
import { createLogger } from '../src/logging.ts';
import { benchAdmin, withBenchDatabase } from './support.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

interface Result {
  name: string;
  perSecond: number;
  p50: number;
  p95: number;
}

async function measure(name: string, send: () => Promise<Response>): Promise<Result> {
  for (let i = 0; i < 50; i++) await (await send()).arrayBuffer(); // warm-up
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) {
        const t = performance.now();
        const response = await send();
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`${name}: ${response.status}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { name, perSecond: REQUESTS / seconds, p50: at(0.5), p95: at(0.95) };
}

async function main() {
  await withBenchDatabase('apps-platform-bench-', async ({ dir, url }) => {
    const config = loadConfig({
      DATABASE_URL: url,
      DATA_DIR: dir,
      PORT: '0',
      API_INTERNAL_PORT: '0',
      API_RATE_LIMIT_PER_MINUTE: '0',
    });
    const local = await readOrCreateLocalSecrets(dir);
    const database = openDatabase(url, { max: 20 });
    const logger = createLogger({ service: 'bench', level: 'silent', env: 'bench' });
    const api = await startApi({ config, database, verifier: localVerifier(local.signingKey), logger });
    const { token } = await benchAdmin(database, local.signingKey);
    const auth = { authorization: `Bearer ${token}` };
    const settings = JSON.stringify({
      approvals: { required: false, requiredFor: ['apps'], fourEyes: true },
      collection: { flowUrl: null },
    });

    const results = [
      await measure('GET /health (no auth, no database)', () => fetch(`${api.url}/health`)),
      await measure('GET /tenants/me (JWT + tenant lookup)', () =>
        fetch(`${api.url}/tenants/me`, { headers: auth }),
      ),
      await measure('PUT /tenants/me/settings (transaction + audit)', () =>
        fetch(`${api.url}/tenants/me/settings`, {
          method: 'PUT',
          headers: { ...auth, 'content-type': 'application/json' },
          body: settings,
        }),
      ),
    ];
    const base = results[0] as Result;
    console.log(`\n${REQUESTS} requests each, ${CONCURRENCY} in flight, ${os.cpus().length} cores\n`);
    for (const r of results) {
      console.log(
        `${r.name.padEnd(50)} ${r.perSecond.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p95 ${r.p95.toFixed(2)} ms  ` +
          `cost ×${(base.perSecond / r.perSecond).toFixed(2)} of health`,
      );
    }
    await api.close();
    await database.close();
  });
}

await main();
