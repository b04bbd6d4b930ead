// Health report benchmark (issue 13): GET /apps/health through the real api with 1,000,000 invocation
// records of the tenant (50 installs, spread over the last 24 hours) and 200,000 of another tenant,
// seeded with one INSERT … SELECT each. Times the report for a 60-minute window (the default, ~42,000
// records) and a 1,440-minute one (all million), prints p50 and p95 against the goal (< 200 ms at 1M
// records) and the plan of the window's read. Prints figures; never asserts timings and is never part of
// the tests.
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { windowStatsQuery } from '../src/calls/health.ts';
import { openDatabase, type Queryable } from '../src/db/pool.ts';
import { ensureTenant } from '../src/tenants/service.ts';
import { benchAdmin, startBenchStack, withBenchDatabase } from './support.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const INSTALLS = 50;
const TIMES = Number(process.env.BENCH_TIMES ?? 30);
const GOAL_MS = 200;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** A version and INSTALLS installs of it for the tenant; their ids. */
async function seedInstalls(db: Queryable, tenantId: string): Promise<string[]> {
  const { rows } = await db.execute<{ id: string }>(sql`
    with version as (
      insert into app_versions (publisher, tenant_id, name, version, status, sha256, size_bytes, manifest)
      values ('tenant', ${tenantId}, 'echo', '1.0.0', 'published', repeat('0', 64), 1, '{"actions":[]}')
      returning id
    )
    insert into app_installs (tenant_id, name, app_name, version_id, enabled, config, hosts)
    select ${tenantId}, 'install-' || n, 'echo', version.id, true, '{}', '[]'
    from version, generate_series(1, ${INSTALLS}) as n
    returning id`);
  return rows.map((row) => row.id);
}

/** `count` records of the tenant's installs over the last 24 hours: 2% errors, 1% timeouts. */
async function seedRecords(db: Queryable, tenantId: string, installIds: string[], count: number) {
  const ids = sql.raw(`array[${installIds.map((id) => `'${id}'::uuid`).join(',')}]`);
  await db.execute(sql`
    insert into app_invocations (tenant_id, install_id, install_name, version_id, app_name, version, action,
      attempt, status, duration_ms, usage, created_at)
    select ${tenantId}, i.install_id, i.name, i.version_id, 'echo', '1.0.0', 'echo', 1,
      case when g % 50 = 0 then 'error' when g % 100 = 1 then 'timeout' else 'success' end,
      ((g::bigint * 7919) % 3000)::int, '{}', now() - make_interval(secs => (g * 86399.0) / ${count})
    from generate_series(1, ${count}) as g
    join lateral (
      select a.id as install_id, a.name, a.version_id from app_installs a
      where a.id = (${ids})[1 + g % ${installIds.length}]
    ) as i on true`);
}

async function main() {
  await withBenchDatabase('apps-platform-bench-health-', async (bench) => {
    const silent = pino({ level: 'silent' });
    const database = openDatabase(bench.url, { max: 10 });
    bench.closers.push(() => database.close());
    const { api, local } = await startBenchStack(bench, database, silent);
    const { tenantId, token } = await benchAdmin(database, local.signingKey);
    const { tenant: other } = await ensureTenant(database.db, 'bench-other');

    const seeding = performance.now();
    await seedRecords(database.db, tenantId, await seedInstalls(database.db, tenantId), RECORDS);
    await seedRecords(database.db, other.id, await seedInstalls(database.db, other.id), RECORDS / 5);
    await database.db.execute(sql`vacuum analyze app_invocations`);
    console.log(
      `seeded ${RECORDS.toLocaleString('en')} records of the tenant (${INSTALLS} installs, last 24 h) and ` +
        `${(RECORDS / 5).toLocaleString('en')} of another in ${Math.round(performance.now() - seeding)} ms\n`,
    );

    for (const windowMinutes of [60, 1440]) {
      const url = `${api.url}/apps/health?windowMinutes=${windowMinutes}`;
      const get = async () => {
        const answer = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        if (answer.status !== 200) throw new Error(`${answer.status} ${await answer.text()}`);
        return (await answer.json()) as { installs: { calls: number }[] };
      };
      const report = await get(); // warm-up, and the records it summed
      for (let i = 0; i < 2; i++) await get();
      const latencies: number[] = [];
      for (let i = 0; i < TIMES; i++) {
        const started = performance.now();
        await get();
        latencies.push(performance.now() - started);
      }
      latencies.sort((a, b) => a - b);
      const summed = report.installs.reduce((sum, install) => sum + install.calls, 0);
      const p50 = quantile(latencies, 0.5);
      const p95 = quantile(latencies, 0.95);
      console.log(
        `windowMinutes ${String(windowMinutes).padStart(4)}: ${summed.toLocaleString('en').padStart(9)} records summed, ` +
          `p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms over ${TIMES} — goal < ${GOAL_MS} ms: ` +
          `${p95 < GOAL_MS ? 'MET' : 'MISSED'} (p95 ×${(p95 / GOAL_MS).toFixed(2)} of it)`,
      );
      const plan = await database.db.execute<{ 'QUERY PLAN': string }>(
        sql`explain (analyze, buffers) ${windowStatsQuery(database.db, tenantId, windowMinutes)}`,
      );
      for (const row of plan.rows) console.log(`    ${row['QUERY PLAN']}`);
      console.log();
    }
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
