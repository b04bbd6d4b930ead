// The attacks of the noisy-neighbour rows: what the attacker's callers send, call after call. An attack
// on a module the runner accepts at upload (POST /v1/inspect) is calls of it (POST /v1/invoke); one it
// refuses is that upload again and again ("refused at upload: <code>"), and the compile bomb is always
// uploads, four at once. The floor is no call at all: processes of no tenant spinning at nice 19.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setPriority } from 'node:os';
import { type Agent, request } from 'undici';
import { LONG_TASK_NICENESS } from '../src/runner/index.ts';
import {
  collidingVariables,
  deepHmacRequests,
  deepStringsAnswer,
  exnrefGlobals,
  hiddenMemoryStart,
  hugeError,
  logFloodWithinBounds,
  nestedBlocks,
  tailCallLoop,
} from '../test/runner/attack-modules.ts';

export type Step =
  | { kind: 'invoke'; shas: string[]; action: string; timeoutMs: number }
  | { kind: 'upload'; bytes: Uint8Array };

export interface Attack {
  key: string;
  name: string;
  /** Caller i's k-th call is steps[(i + k) % steps.length]; 'spin': the floor, no calls. */
  steps: Step[] | 'spin';
  /** What preparing it found (a refusal at upload). */
  note?: string;
}

/** The modules the bench already has: echo's neighbour, the looping fixture, the older attacks'. */
export interface KnownModules {
  hostile: string;
  memoryBomb: string;
  slowStart: string[];
}

interface Built {
  key: string;
  name: string;
  build: () => Uint8Array[];
  memoryMiB: number;
  timeoutMs: number;
  /** Uploads whatever the inspection says (the compile bomb). */
  uploads?: boolean;
}

/** The attacks of issue 43 item 6, each a hand-written module (test/runner/attack-modules.ts). */
const BUILT: Built[] = [
  {
    key: 'log-flood',
    name: '1,000 log requests of 16 kB',
    build: () => [logFloodWithinBounds()],
    memoryMiB: 16,
    timeoutMs: 5_000,
  },
  {
    key: 'tail-call',
    name: '1. return_call loop (200 ms deadline)',
    build: () => [tailCallLoop()],
    memoryMiB: 16,
    timeoutMs: 200,
  },
  {
    key: 'hmac-deep',
    name: '2. hmac of 6M [ then 6M ] (12 MB)',
    build: () => [deepHmacRequests()],
    memoryMiB: 16,
    timeoutMs: 5_000,
  },
  {
    key: 'deep-answer',
    name: '3. answer: 525 strings of 999-deep JSON',
    build: () => [deepStringsAnswer()],
    memoryMiB: 16,
    timeoutMs: 5_000,
  },
  {
    key: 'huge-error',
    name: '4. error_set on a 250 MiB block',
    build: () => [hugeError()],
    memoryMiB: 256,
    timeoutMs: 5_000,
  },
  {
    key: 'var-keys',
    name: '5. var_set colliding keys, 8 × 64 MiB',
    build: () => [collidingVariables()],
    memoryMiB: 16,
    timeoutMs: 5_000,
  },
  {
    key: 'warm-memory',
    name: '6. memory as `mem`, start grows 4,096 pages',
    build: () => [0, 1, 2, 3].map((variant) => hiddenMemoryStart(4096, variant)),
    memoryMiB: 256,
    timeoutMs: 5_000,
  },
  {
    key: 'exnref',
    name: '7. 9,998 exnref globals, 1,000 × v128',
    build: () => [exnrefGlobals()],
    memoryMiB: 16,
    timeoutMs: 5_000,
  },
  {
    key: 'compile-bomb',
    name: '8. 2.5M nested blocks, uploads',
    build: () => [nestedBlocks()],
    memoryMiB: 16,
    timeoutMs: 5_000,
    uploads: true,
  },
];

const invoke = (shas: string[], action: string, timeoutMs: number): Step => ({
  kind: 'invoke',
  shas,
  action,
  timeoutMs,
});

/** The keys BENCH_RUNNER_ATTACKS may name (comma-separated; all when unset), in the order they run. */
export const ATTACK_KEYS = [
  'floor',
  'short-loops',
  'long-loops',
  'memory',
  'start',
  'mixed',
  // tail-call last: threads a deadline cannot stop would weigh on every row after it.
  ...BUILT.map((b) => b.key).filter((key) => key !== 'tail-call'),
  'tail-call',
];

export interface Preparing {
  known: KnownModules;
  loopTimeoutMs: number;
  /** Stores a module (capped at memoryMiB) where the runner fetches it; its sha256. */
  store(bytes: Uint8Array, memoryMiB: number): Promise<string>;
  /** The runner's verdict on an upload of the module. */
  inspect(bytes: Uint8Array): Promise<{ accepted: boolean; code?: string; message?: string }>;
}

/** The attacks picked, their modules built, inspected once and stored. */
export async function prepareAttacks(
  at: Preparing,
  only = process.env.BENCH_RUNNER_ATTACKS,
): Promise<Attack[]> {
  const keys = only ? only.split(',').map((key) => key.trim()) : ATTACK_KEYS;
  const { known, loopTimeoutMs } = at;
  const loops = (ms: number) => invoke([known.hostile], 'spin', ms);
  const memory = invoke([known.memoryBomb], 'bomb', 5_000);
  const start = invoke(known.slowStart, 'spin', 15_000);
  const attacks: Attack[] = [];
  for (const key of keys) {
    if (key === 'floor')
      attacks.push({ key, name: `floor: ${LONG_TASK_NICENESS}-nice processes, not calls`, steps: 'spin' });
    else if (key === 'short-loops')
      attacks.push({ key, name: `loops (${loopTimeoutMs} ms deadline)`, steps: [loops(loopTimeoutMs)] });
    else if (key === 'long-loops') attacks.push({ key, name: 'loops (5 s deadline)', steps: [loops(5_000)] });
    else if (key === 'memory') attacks.push({ key, name: 'memory bombs (grow to 256 MiB)', steps: [memory] });
    else if (key === 'start') attacks.push({ key, name: 'start code that never ends', steps: [start] });
    else if (key === 'mixed')
      attacks.push({
        key,
        name: 'mixed: loops, memory, start code',
        steps: [loops(loopTimeoutMs), memory, start],
      });
    else {
      const built = BUILT.find((b) => b.key === key);
      if (!built) throw new Error(`BENCH_RUNNER_ATTACKS: no attack ${key}; ${ATTACK_KEYS.join(', ')}`);
      attacks.push(await prepareBuilt(at, built));
    }
  }
  return attacks;
}

async function prepareBuilt(at: Preparing, built: Built): Promise<Attack> {
  const modules = built.build();
  const first = modules[0] as Uint8Array;
  const size = `${(first.byteLength / 1e6).toFixed(2)} MB`;
  if (built.uploads)
    return {
      key: built.key,
      name: built.name,
      steps: [{ kind: 'upload', bytes: first }],
      note: `${size}, uploads`,
    };
  const verdict = await at.inspect(first);
  if (!verdict.accepted) {
    const note = `refused at upload: ${verdict.code} (${(verdict.message ?? '').slice(0, 100)}); the row is uploads of it`;
    console.log(`${built.key}: ${note}`);
    return { key: built.key, name: built.name, steps: [{ kind: 'upload', bytes: first }], note };
  }
  const shas = await Promise.all(modules.map((bytes) => at.store(bytes, built.memoryMiB)));
  return {
    key: built.key,
    name: built.name,
    steps: [invoke(shas, 'attack', built.timeoutMs)],
    note: `${size}, accepted at upload`,
  };
}

/** What an attacker's caller waits after a busy answer: far less than a real caller's retry delay. */
const BUSY_BACKOFF_MS = 100;

export interface Attacker {
  /** Answers by status (uploads: 200a accepted, 200r refused), since the last take(). */
  take(): Map<string, number>;
  /** Any answer yet. */
  answered(): boolean;
  /** Stops sending; resolves once every caller's last call is answered. */
  stop(): Promise<void>;
}

/** The attack's callers, each sending its next call once the last is answered, until stopped. */
export function startAttacker(
  url: string,
  agent: Agent,
  token: string,
  attack: Attack,
  callers: number,
): Attacker {
  let attacking = true;
  let counts = new Map<string, number>();
  let any = false;
  if (attack.steps === 'spin') {
    const stop = startSpinners(callers);
    return { take: () => new Map(), answered: () => true, stop };
  }
  const steps = attack.steps;
  const tenantId = randomUUID();
  let rotate = 0;
  const send = async (step: Step): Promise<string> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId };
    if (step.kind === 'upload') {
      const response = await request(`${url}/v1/inspect`, {
        method: 'POST',
        dispatcher: agent,
        headers: { ...headers, 'content-type': 'application/wasm' },
        body: step.bytes,
      });
      if (response.statusCode !== 200) {
        await response.body.dump();
        return String(response.statusCode);
      }
      const verdict = (await response.body.json()) as { accepted: boolean };
      return verdict.accepted ? '200a' : '200r';
    }
    const sha256 = step.shas[rotate++ % step.shas.length] as string;
    const response = await request(`${url}/v1/invoke`, {
      method: 'POST',
      dispatcher: agent,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        module: { sha256 },
        call: { id: randomUUID(), tenantId },
        action: step.action,
        config: {},
        input: { n: 1 },
        timeoutMs: step.timeoutMs,
      }),
    });
    await response.body.dump();
    return String(response.statusCode);
  };
  const running = Array.from({ length: callers }, async (_, i) => {
    for (let k = 0; attacking; k++) {
      let status: string;
      try {
        status = await send(steps[(i + k) % steps.length] as Step);
      } catch (error) {
        status = `error ${(error as Error).message.slice(0, 40)}`;
      }
      any = true;
      counts.set(status, (counts.get(status) ?? 0) + 1);
      if (status === '429') await new Promise((resolve) => setTimeout(resolve, BUSY_BACKOFF_MS));
    }
  });
  return {
    take() {
      const taken = counts;
      counts = new Map();
      return taken;
    },
    answered: () => any,
    async stop() {
      attacking = false;
      await Promise.all(running);
    },
  };
}

/** `count` processes looping at the niceness of a long sandbox call, until stopped. */
function startSpinners(count: number): () => Promise<void> {
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
