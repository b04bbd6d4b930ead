// The noisy-neighbour rows: a good tenant's callers on the echo module for a fixed time, alone (quiet),
// then while another tenant attacks (runner-attacks.ts), on a runner in a process of its own
// (runner-threads.ts), so the CPU of its threads is the runner's alone. Per attacked row: the neighbour's
// calls a second and p99 against the quiet row just before, its worst call, the time until the
// runner's OS threads and resident memory are back at their level before the attack, and where the
// runner's CPU went during the attack, by thread group. The goals are issue 43 item 6's.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { type Attack, type KnownModules, prepareAttacks, startAttacker } from './runner-attacks.ts';
import { quantile, sleep } from './runner-load.ts';
import { fmt, goal } from './runner-report.ts';
import {
  GROUPS,
  osThreads,
  processTicks,
  type RunnerChild,
  rssMiB,
  startRunnerChild,
  type ThreadCpu,
  threadSampler,
} from './runner-threads.ts';

export interface NeighbourSettings {
  seconds: number;
  /** The runner's threads (APP_RUNNER_CONCURRENCY). */
  threads: number;
  neighbourCallers: number;
  attackCallers: number;
}

export const GOAL_SHARE = 0.8;
export const GOAL_P99_RATIO = 3;
export const GOAL_WORST_MS = 250;
export const GOAL_RECOVERY_MS = 5_000;
/** Back at the baseline: no more OS threads than before, resident memory within this much of before. */
export const RSS_MARGIN_MIB = 32;

export interface NeighbourRow {
  name: string;
  note?: string;
  latencies: number[];
  perSecond: number;
  worstMs: number;
  failures: Map<number, number>;
  attacks: Map<string, number>;
  cpu: ThreadCpu;
  before: { threads: number; rssMiB: number };
  peak: { threads: number; rssMiB: number };
  /** ms after the attack's last call until threads / RSS were back; null: not within GOAL_RECOVERY_MS. */
  threadsBackMs: number | null;
  rssBackMs: number | null;
  after: { threads: number; rssMiB: number };
}

const echoBody = (sha256: string, tenantId: string) =>
  JSON.stringify({
    module: { sha256 },
    call: { id: randomUUID(), tenantId },
    action: 'echo',
    config: {},
    input: { n: 1 },
    timeoutMs: 5_000,
  });

async function health(url: string) {
  const response = await request(`${url}/health`);
  return (await response.body.json()) as { inFlight: number; threads: number; threadsReplaced: number };
}

/** No call in flight, every thread back, and the runner process under a tenth of a core for 200 ms. */
async function settled(runner: RunnerChild, threads: number) {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const now = await health(runner.url);
    if (now.inFlight === 0 && now.threads >= threads) break;
    await sleep(50);
  }
  const quietUntil = Date.now() + 10_000;
  while (Date.now() < quietUntil) {
    const ticks = processTicks(runner.pid);
    await sleep(200);
    if (processTicks(runner.pid) - ticks <= 2) return;
  }
}

/** One echo call of `tenantId` through the runner's API; its status once the answer is read. */
async function invokeEcho(runner: RunnerChild, agent: Agent, token: string, echo: string, tenantId: string) {
  const response = await request(`${runner.url}/v1/invoke`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: echoBody(echo, tenantId),
  });
  await response.body.dump();
  return response.statusCode;
}

/**
 * Grows the runner's pool to its most (a pool starts with the machine's cores and grows when a call finds
 * no thread idle, never shrinking): bursts of echo calls, one tenant each, until it counts `threads`. The
 * quiet rows then see the pool an attack leaves behind, so threads back means no thread leaked.
 */
async function fillPool(runner: RunnerChild, token: string, echo: string, threads: number) {
  // A connection per call of a burst: the callers' agent holds fewer.
  const agent = new Agent({ connections: threads });
  for (let burst = 0; burst < 50 && (await health(runner.url)).threads < threads; burst++) {
    await Promise.all(
      Array.from({ length: threads }, async () => {
        await invokeEcho(runner, agent, token, echo, randomUUID());
      }),
    );
  }
  await agent.close();
}

export async function neighbourRow(
  runner: RunnerChild,
  agent: Agent,
  token: string,
  echo: string,
  settings: NeighbourSettings,
  attack: Attack | null,
): Promise<NeighbourRow> {
  await settled(runner, settings.threads);
  const before = { threads: osThreads(runner.pid), rssMiB: rssMiB(runner.pid) };
  const peak = { ...before };
  const attacker = attack ? startAttacker(runner.url, agent, token, attack, settings.attackCallers) : null;
  if (attacker && attack?.steps !== 'spin') {
    // Under way once its calls fill its callers, or one is answered (10 s at most).
    const until = Date.now() + 10_000;
    while (Date.now() < until && !attacker.answered()) {
      if ((await health(runner.url)).inFlight >= settings.attackCallers) break;
      await sleep(5);
    }
  }
  attacker?.take();
  const neighbour = randomUUID();
  const latencies: number[] = [];
  const failures = new Map<number, number>();
  let worstMs = 0;
  const watch = setInterval(() => {
    peak.threads = Math.max(peak.threads, osThreads(runner.pid));
    peak.rssMiB = Math.max(peak.rssMiB, rssMiB(runner.pid));
  }, 100);
  const sampler = threadSampler(runner.pid);
  const started = performance.now();
  const endAt = started + settings.seconds * 1000;
  await Promise.all(
    Array.from({ length: settings.neighbourCallers }, async () => {
      while (performance.now() < endAt) {
        const t = performance.now();
        const status = await invokeEcho(runner, agent, token, echo, neighbour);
        const ms = performance.now() - t;
        worstMs = Math.max(worstMs, ms);
        if (status === 200) latencies.push(ms);
        else failures.set(status, (failures.get(status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = sampler.stop();
  const attacks = attacker?.take() ?? new Map();
  await attacker?.stop();
  // The attack has ended: how long until the runner's threads and memory are back where they were.
  const stopped = performance.now();
  let threadsBackMs: number | null = null;
  let rssBackMs: number | null = null;
  let after = before;
  while (performance.now() - stopped <= GOAL_RECOVERY_MS) {
    after = { threads: osThreads(runner.pid), rssMiB: rssMiB(runner.pid) };
    const at = performance.now() - stopped;
    if (threadsBackMs === null && after.threads <= before.threads) threadsBackMs = at;
    if (rssBackMs === null && after.rssMiB <= before.rssMiB + RSS_MARGIN_MIB) rssBackMs = at;
    if (threadsBackMs !== null && rssBackMs !== null) break;
    await sleep(50);
  }
  clearInterval(watch);
  return {
    name: attack?.name ?? 'quiet: the neighbour alone',
    ...(attack?.note ? { note: attack.note } : {}),
    latencies,
    perSecond: latencies.length / seconds,
    worstMs,
    failures,
    attacks,
    cpu,
    before,
    peak,
    threadsBackMs,
    rssBackMs,
    after,
  };
}

export interface NeighbourPair {
  quiet: NeighbourRow;
  attacked: NeighbourRow;
}

const p99 = (row: NeighbourRow) => quantile(row.latencies, 0.99);
const statuses = (counts: Map<unknown, number>) =>
  [...counts]
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');
const back = (ms: number | null) => (ms === null ? 'not in 5 s' : `${fmt(ms, 0)} ms`);
const mark = (met: boolean) => (met ? 'ok' : 'MISS');

/** For each pair: the neighbour's figures and goals, then recovery, then the CPU by thread group. */
export function printNeighbour(pairs: NeighbourPair[], settings: NeighbourSettings) {
  console.log(
    `\nnoisy neighbour (runner in a child process, ${settings.threads} threads): a tenant's ` +
      `${settings.neighbourCallers} callers on echo for ${settings.seconds} s a row, alone (quiet), then ` +
      `while another tenant's ${settings.attackCallers} callers attack`,
  );
  const floor = pairs.find((pair) => pair.attacked.name.startsWith('floor'));
  const shareOf = ({ quiet, attacked }: NeighbourPair) => attacked.perSecond / quiet.perSecond;
  const head = [
    'attack'.padEnd(44),
    'quiet/s',
    'calls/s',
    '/quiet',
    '/floor',
    'p99',
    'p99/q',
    'worst',
    'fail',
  ];
  console.log(`${head.join(' ')}  share p99 worst threads-back rss-back  goals`);
  for (const pair of pairs) {
    const { quiet, attacked } = pair;
    const share = shareOf(pair);
    const ratio = p99(attacked) / p99(quiet);
    const met = {
      share: share >= GOAL_SHARE && attacked.failures.size === 0,
      p99: ratio <= GOAL_P99_RATIO,
      worst: attacked.worstMs <= GOAL_WORST_MS,
      threads: attacked.threadsBackMs !== null,
      rss: attacked.rssBackMs !== null,
    };
    console.log(
      [
        attacked.name.slice(0, 44).padEnd(44),
        fmt(quiet.perSecond, 0).padStart(7),
        fmt(attacked.perSecond, 0).padStart(7),
        fmt(share, 2).padStart(6),
        (floor && pair !== floor ? fmt(share / shareOf(floor), 2) : '-').padStart(6),
        fmt(p99(attacked), 1).padStart(5),
        `×${fmt(ratio, 1)}`.padStart(5),
        fmt(attacked.worstMs, 0).padStart(5),
        String([...attacked.failures.values()].reduce((a, b) => a + b, 0)).padStart(4),
        ` ${mark(met.share).padEnd(5)} ${mark(met.p99).padEnd(4)} ${mark(met.worst).padEnd(5)}`,
        `${back(attacked.threadsBackMs).padStart(12)} ${back(attacked.rssBackMs).padStart(10)}`,
        ` ${Object.values(met).every(Boolean) ? 'all met' : 'MISSED'}`,
      ].join(' '),
    );
  }
  console.log(
    `/quiet: calls/s over the quiet row just before; /floor: that share over the floor row's share; p99, ` +
      `worst: ms; goals: ≥ ${GOAL_SHARE} of quiet calls/s (no failed call), p99 ≤ ${GOAL_P99_RATIO}× quiet, ` +
      `worst ≤ ${GOAL_WORST_MS} ms,\nthreads back to the count before the attack and RSS within ` +
      `${RSS_MARGIN_MIB} MiB of it, within ${GOAL_RECOVERY_MS / 1000} s of the attack's last answer`,
  );

  console.log(
    '\nper row: the runner process before → peak → 5 s after (or when back); attacker answers; notes',
  );
  for (const { quiet, attacked: row } of pairs) {
    console.log(
      `${row.name.slice(0, 44).padEnd(44)} quiet worst ${fmt(quiet.worstMs, 0)} ms; threads ${row.before.threads}→${row.peak.threads}→${row.after.threads}` +
        `, RSS ${fmt(row.before.rssMiB, 0)}→${fmt(row.peak.rssMiB, 0)}→${fmt(row.after.rssMiB, 0)} MiB; ` +
        `${statuses(row.attacks) || '-'}${row.failures.size ? `; neighbour failed: ${statuses(row.failures)}` : ''}` +
        `${row.note ? `; ${row.note}` : ''}`,
    );
  }

  console.log(
    "\nwhere the runner process's CPU went, ms a second (2 cores = 2,000): main = MainThread, sandbox = " +
      'WorkerThread (the sandbox threads),\nv8 = V8Worker + DelayedTaskSche (GC helpers, compilation), libuv ' +
      '= libuv-worker, ended = threads that ended between 100 ms samples; bench, others: shares of all cores',
  );
  console.log(
    [
      'row'.padEnd(44),
      ...GROUPS.map((g) => g.padStart(7)),
      'total'.padStart(7),
      'bench'.padStart(6),
      'others'.padStart(7),
    ].join(' '),
  );
  const cpuLine = (row: NeighbourRow) =>
    console.log(
      [
        row.name.slice(0, 44).padEnd(44),
        ...GROUPS.map((g) => fmt(row.cpu.msPerSecond[g], 0).padStart(7)),
        fmt(row.cpu.totalPerSecond, 0).padStart(7),
        `${fmt(100 * row.cpu.bench, 0)}%`.padStart(6),
        `${fmt(100 * row.cpu.others, 0)}%`.padStart(7),
      ].join(' '),
    );
  for (const pair of pairs) {
    cpuLine(pair.quiet);
    cpuLine(pair.attacked);
  }
  const names = new Map<string, number>();
  for (const pair of pairs)
    for (const row of [pair.quiet, pair.attacked])
      for (const [name, n] of row.cpu.names) names.set(name, Math.max(names.get(name) ?? 0, n));
  console.log(`thread names in the runner process (most seen within one row): ${statuses(names)}`);

  for (const pair of pairs) {
    const share = shareOf(pair);
    const ratio = p99(pair.attacked) / p99(pair.quiet);
    goal(
      `neighbour under "${pair.attacked.name}": ${fmt(100 * share, 0)}% of quiet calls/s, p99 ×${fmt(ratio, 1)}, ` +
        `worst ${fmt(pair.attacked.worstMs, 0)} ms, threads back ${back(pair.attacked.threadsBackMs)}, RSS back ` +
        `${back(pair.attacked.rssBackMs)}`,
      share >= GOAL_SHARE &&
        pair.attacked.failures.size === 0 &&
        ratio <= GOAL_P99_RATIO &&
        pair.attacked.worstMs <= GOAL_WORST_MS &&
        pair.attacked.threadsBackMs !== null &&
        pair.attacked.rssBackMs !== null,
    );
  }
}

/** For each attack, the neighbour alone and then attacked. */
export async function measureNeighbour(
  runner: RunnerChild,
  agent: Agent,
  token: string,
  echo: string,
  settings: NeighbourSettings,
  attacks: Attack[],
): Promise<NeighbourPair[]> {
  await fillPool(runner, token, echo, settings.threads);
  const row = (attack: Attack | null) => neighbourRow(runner, agent, token, echo, settings, attack);
  const pairs: NeighbourPair[] = [];
  for (const attack of attacks) {
    const quiet = await row(null);
    const attacked = await row(attack);
    console.log(
      `  ${attack.key}: ${fmt(attacked.perSecond, 0)} calls/s (quiet ${fmt(quiet.perSecond, 0)}), worst ` +
        `${fmt(attacked.worstMs, 0)} ms, others ${fmt(100 * attacked.cpu.others, 0)}%`,
    );
    pairs.push({ quiet, attacked });
  }
  return pairs;
}

export interface NeighbourRun {
  /** The child runner's environment. */
  env: Record<string, string>;
  agent: Agent;
  token: string;
  echo: string;
  settings: NeighbourSettings;
  known: KnownModules;
  loopTimeoutMs: number;
  store(bytes: Uint8Array, memoryMiB: number): Promise<string>;
}

/** A runner in a child process, the attacks prepared on it (each inspected once), then every pair. */
export async function noisyNeighbourRows(run: NeighbourRun): Promise<NeighbourPair[]> {
  const child = await startRunnerChild(run.env);
  try {
    const inspect = async (bytes: Uint8Array) => {
      const response = await request(`${child.url}/v1/inspect`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${run.token}`,
          'content-type': 'application/wasm',
          'x-tenant-id': randomUUID(),
        },
        body: bytes,
      });
      return (await response.body.json()) as { accepted: boolean; code?: string; message?: string };
    };
    console.log('\npreparing the attacks (each inspected once as an upload)…');
    const attacks = await prepareAttacks({ ...run, inspect });
    return await measureNeighbour(child, run.agent, run.token, run.echo, run.settings, attacks);
  } finally {
    await child.close();
  }
}
