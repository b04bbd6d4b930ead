// The runner benchmark's noisy-neighbour rows: one tenant (the neighbour) calls the echo module with
// closed-loop callers for a fixed time, alone, then while another tenant (the attacker) keeps its full
// concurrency busy with hostile calls: loops, memory grown to its cap, and start code that never ends
// (on modules the runner has not seen before, so every call is a fresh start and asks for warm-ups).
// A floor row puts the neighbour beside processes that are not the platform at all, spinning at the
// lowest priority the runner gives a long call: what any work on the other core costs this machine.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type Agent, request } from 'undici';
import { LONG_TASK_NICENESS } from '../src/runner/index.ts';
import { appModule } from '../test/module/wat.ts';
import { type Cpu, cpuMeter, quantile, quiet, type Runner, sleep } from './runner-load.ts';
import { fmt, goal } from './runner-report.ts';

/** What the attacker's calls do; `spin` is no call: a process of its own loops (the machine floor). */
export type AttackKind = 'loop' | 'memory' | 'slow-start' | 'spin';

export interface NeighbourModules {
  echo: string;
  /** The hostile fixture: `spin` loops. */
  hostile: string;
  /** memoryBombModule() capped at 256 MiB, the largest memoryMiB a manifest may ask. */
  memoryBomb: string;
  /** Modules whose start code never ends; the attacker goes round them. */
  slowStart: string[];
}

export interface Attack {
  name: string;
  /** Caller i's k-th call is kinds[(i + k) % kinds.length]. */
  kinds: AttackKind[];
  /** The looping calls' deadline. */
  loopTimeoutMs: number;
}

export interface NeighbourSettings {
  seconds: number;
  /** The runner's threads (APP_RUNNER_CONCURRENCY). */
  threads: number;
  neighbourCallers: number;
  attackCallers: number;
}

export interface NeighbourRow {
  name: string;
  latencies: number[];
  perSecond: number;
  cpu: Cpu;
  /** The neighbour's answers other than 200 (busy included): none expected; and by status. */
  failed: number;
  failures: Map<number, number>;
  /** Attacker calls answered in the row, by status. */
  attacks: Map<number, number>;
  replaced: number;
}

type Body = Record<string, unknown>;

/** What an attacker's caller waits after a busy answer: far less than a real caller's retry delay. */
const BUSY_BACKOFF_MS = 100;

async function post(runner: Runner, agent: Agent, token: string, body: Body) {
  const response = await request(`${runner.url}/v1/invoke`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  await response.body.dump();
  return response.statusCode;
}

const invoke = (sha256: string, tenantId: string, action: string, timeoutMs: number): Body => ({
  module: { sha256 },
  call: { id: randomUUID(), tenantId },
  action,
  config: {},
  input: { n: 1 },
  timeoutMs,
});

async function health(runner: Runner) {
  const response = await request(`${runner.url}/health`);
  return (await response.body.json()) as { inFlight: number; threads: number; threadsReplaced: number };
}

/** Until no call is in flight and every thread is back (the previous row's calls and replacements). */
async function settled(runner: Runner, threads: number) {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const now = await health(runner);
    if (now.inFlight === 0 && now.threads >= threads) break;
    await sleep(50);
  }
  await quiet();
}

/** `count` processes looping at the niceness of a long sandbox call, until they are stopped. */
async function startSpinners(count: number): Promise<() => Promise<void>> {
  const spinners: ChildProcess[] = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  for (const child of spinners) if (child.pid) setPriority(child.pid, LONG_TASK_NICENESS);
  return async () => {
    await Promise.all(
      spinners.map((child) => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        return exited;
      }),
    );
  };
}

/**
 * One row: the attacker's callers start (none for the quiet row) and fill its concurrency, then the
 * neighbour's callers run for `seconds`; the attacker stops and its last calls are waited out.
 */
export async function neighbourRow(
  runner: Runner,
  agent: Agent,
  token: string,
  modules: NeighbourModules,
  settings: NeighbourSettings,
  attack: Attack | null,
): Promise<NeighbourRow> {
  await settled(runner, settings.threads);
  const neighbour = randomUUID();
  const attacker = randomUUID();
  const attacks = new Map<number, number>();
  let attacking = attack !== null;
  let slowNext = 0;
  const attackBody = (kind: AttackKind): Body => {
    if (kind === 'loop') return invoke(modules.hostile, attacker, 'spin', attack?.loopTimeoutMs ?? 200);
    if (kind === 'memory') return invoke(modules.memoryBomb, attacker, 'bomb', 5_000);
    const sha256 = modules.slowStart[slowNext++ % modules.slowStart.length] as string;
    return invoke(sha256, attacker, 'spin', 15_000);
  };
  const floor = attack?.kinds.includes('spin') ?? false;
  const stopSpinners = floor ? await startSpinners(settings.attackCallers) : null;
  const attackers =
    attack && !floor
      ? Array.from({ length: settings.attackCallers }, async (_, i) => {
          for (let k = 0; attacking; k++) {
            const kind = attack.kinds[(i + k) % attack.kinds.length] as AttackKind;
            const status = await post(runner, agent, token, attackBody(kind));
            attacks.set(status, (attacks.get(status) ?? 0) + 1);
            // After busy the caller waits before it tries again, as the worker's retries do (for seconds).
            if (status === 429) await sleep(BUSY_BACKOFF_MS);
          }
        })
      : [];
  if (attack && !floor) {
    // The attack is under way once the attacker's calls fill its share of the runner.
    const until = Date.now() + 10_000;
    while (Date.now() < until && (await health(runner)).inFlight < settings.attackCallers) await sleep(5);
  }
  const before = await health(runner);
  const counted = new Map(attacks);
  const latencies: number[] = [];
  const failures = new Map<number, number>();
  const cpu = cpuMeter();
  const started = performance.now();
  const endAt = started + settings.seconds * 1000;
  await Promise.all(
    Array.from({ length: settings.neighbourCallers }, async () => {
      while (performance.now() < endAt) {
        const t = performance.now();
        const status = await post(runner, agent, token, invoke(modules.echo, neighbour, 'echo', 5_000));
        if (status === 200) latencies.push(performance.now() - t);
        else failures.set(status, (failures.get(status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = cpu();
  const after = await health(runner);
  for (const [status, n] of counted) attacks.set(status, (attacks.get(status) ?? 0) - n);
  attacking = false;
  await Promise.all(attackers);
  await stopSpinners?.();
  return {
    name: attack?.name ?? 'quiet: the neighbour alone',
    latencies,
    perSecond: latencies.length / seconds,
    cpu: used,
    failed: [...failures.values()].reduce((a, b) => a + b, 0),
    failures,
    attacks,
    replaced: after.threadsReplaced - before.threadsReplaced,
  };
}

const GOAL_SHARE = 0.8;
const GOAL_P99_RATIO = 3;

/** An attack row and the quiet row measured right before it (the machine's other load drifts). */
export interface NeighbourPair {
  quiet: NeighbourRow;
  attacked: NeighbourRow;
}

const p99 = (row: NeighbourRow) => quantile(row.latencies, 0.99);

/** Each pair (quiet, then attacked with its ratios to that quiet row), then a goal line per pair. */
export function printNeighbour(pairs: NeighbourPair[], settings: NeighbourSettings) {
  console.log(
    `\nnoisy neighbour: a tenant's ${settings.neighbourCallers} callers on echo for ${settings.seconds} s a ` +
      `row, alone, then while another tenant's ${settings.attackCallers} callers (its whole concurrency) attack`,
  );
  const head = [
    'row'.padEnd(46),
    'calls/s'.padStart(8),
    '/quiet'.padStart(7),
    'p50 ms'.padStart(7),
    'p99 ms'.padStart(7),
    'p99/q'.padStart(6),
    'CPU'.padStart(5),
    'other'.padStart(5),
    'repl'.padStart(5),
    'fail'.padStart(5),
    '  attacker answers (status×n)',
  ];
  console.log(head.join(' '));
  const line = (row: NeighbourRow, quiet: NeighbourRow | null) =>
    console.log(
      [
        row.name.padEnd(46),
        fmt(row.perSecond, 0).padStart(8),
        quiet ? `${fmt((100 * row.perSecond) / quiet.perSecond, 0)}%`.padStart(7) : ''.padStart(7),
        fmt(quantile(row.latencies, 0.5), 2).padStart(7),
        fmt(p99(row), 2).padStart(7),
        quiet ? `×${fmt(p99(row) / p99(quiet), 1)}`.padStart(6) : ''.padStart(6),
        `${fmt(100 * row.cpu.own, 0)}%`.padStart(5),
        `${fmt(100 * row.cpu.others, 0)}%`.padStart(5),
        String(row.replaced).padStart(5),
        String(row.failed).padStart(5),
        `  ${statuses(row.attacks) || '-'}${row.failed ? `; neighbour: ${statuses(row.failures)}` : ''}`,
      ].join(' '),
    );
  for (const pair of pairs) {
    line(pair.quiet, null);
    line(pair.attacked, pair.quiet);
  }
  console.log(
    '/quiet, p99/q: calls/s and p99 over the quiet row just before; CPU, other: this process and all other ' +
      'processes, shares of all cores;\nrepl: threads replaced during the row; attacker answers: 504 timeout, ' +
      '502 trapped, 429 busy',
  );
  const shareOf = ({ quiet, attacked }: NeighbourPair) => attacked.perSecond / quiet.perSecond;
  const floor = pairs.find((pair) => pair.attacked.name.startsWith('floor'));
  for (const pair of pairs) {
    const share = shareOf(pair);
    const ratio = p99(pair.attacked) / p99(pair.quiet);
    // Beside the floor: the share the platform itself keeps of what this machine leaves the neighbour.
    const ofFloor =
      floor && pair !== floor ? `, ${fmt((100 * share) / shareOf(floor), 0)}% of the floor's` : '';
    goal(
      `the neighbour keeps ${100 * GOAL_SHARE}% of its calls/s and its p99 within ${GOAL_P99_RATIO}× quiet: ` +
        `${pair.attacked.name}: ${fmt(100 * share, 0)}%${ofFloor}, p99 ×${fmt(ratio, 1)}`,
      share >= GOAL_SHARE && ratio <= GOAL_P99_RATIO && pair.attacked.failed === 0,
    );
  }
}

const statuses = (counts: Map<number, number>) =>
  [...counts]
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');

/** The attacks measured, by key (BENCH_RUNNER_ATTACKS picks some, comma-separated; all when unset). */
export function attacksOf(loopTimeoutMs: number, only = process.env.BENCH_RUNNER_ATTACKS): Attack[] {
  const all: Record<string, Attack> = {
    floor: {
      name: `floor: ${LONG_TASK_NICENESS}-nice processes, not calls`,
      kinds: ['spin'],
      loopTimeoutMs,
    },
    'short-loops': { name: `4 loops (${loopTimeoutMs} ms deadline)`, kinds: ['loop'], loopTimeoutMs },
    'long-loops': { name: '4 loops (5 s deadline)', kinds: ['loop'], loopTimeoutMs: 5_000 },
    memory: { name: '4 memory bombs (grow to a 256 MiB cap)', kinds: ['memory'], loopTimeoutMs },
    start: { name: '4 calls of start code that never ends', kinds: ['slow-start'], loopTimeoutMs },
    mixed: {
      name: 'mixed: loops, memory, start code',
      kinds: ['loop', 'memory', 'slow-start'],
      loopTimeoutMs,
    },
  };
  const keys = only ? only.split(',') : Object.keys(all);
  return keys.map((key) => {
    const attack = all[key.trim()];
    if (!attack) throw new Error(`BENCH_RUNNER_ATTACKS: no attack ${key}; ${Object.keys(all).join(', ')}`);
    return attack;
  });
}

/** For each attack, the neighbour alone and then attacked. */
export async function measureNeighbour(
  runner: Runner,
  agent: Agent,
  token: string,
  modules: NeighbourModules,
  settings: NeighbourSettings,
  loopTimeoutMs: number,
): Promise<NeighbourPair[]> {
  const row = (attack: Attack | null) => neighbourRow(runner, agent, token, modules, settings, attack);
  const pairs: NeighbourPair[] = [];
  for (const attack of attacksOf(loopTimeoutMs))
    pairs.push({ quiet: await row(null), attacked: await row(attack) });
  return pairs;
}

/** A module whose start code never ends, distinct by an export of its own (a new module each). */
export function slowStartModule(i: number): Uint8Array {
  return appModule({
    exports: ['manifest', 'invoke', `variant_${i}`],
    extra: '(func (export "_initialize") (loop $forever (br $forever)))',
  });
}

/**
 * A module whose invoke grows its memory to its cap a MiB at a time, writes to every 4 KiB page of it
 * (so each is really given to it), then traps: resident memory up to the cap, and the CPU of the faults.
 */
export function memoryBombModule(): Uint8Array {
  return appModule({
    exports: ['manifest'],
    extra: `(func (export "invoke") (result i32) (local $at i32)
      (loop $grow (br_if $grow (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
      (block $done
        (loop $touch
          (br_if $done (i32.ge_u (local.get $at) (i32.mul (memory.size) (i32.const 65536))))
          (i32.store8 (local.get $at) (i32.const 1))
          (local.set $at (i32.add (local.get $at) (i32.const 4096)))
          (br $touch)))
      unreachable)`,
  });
}
