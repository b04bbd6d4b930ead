// Generated modules that import every function a module may import (all of WASI preview 1 the platform
// allows, the whole Extism kernel, every host function) and call them in random order with random
// arguments — null, edge and random pointers, real and made-up block addresses — through the real runner
// in a process of its own. Whatever they do, the runner answers each call with one of the module's
// outcomes, never an internal error, and stays whole: alive, ready, every thread in place.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HOST_FUNCTIONS } from '../../src/module/imports.ts';
import { threadsAtStart } from '../../src/runner/threads/sandbox-pool.ts';
import { wat } from '../module/wat.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN, type RunnerProcess, startRunnerProcess, waitForRunner } from '../support/runner.ts';

type Type = 'i32' | 'i64';
/** Every import a module may have: [namespace, name, params, result]. */
const IMPORTS: [string, string, Type[], Type | null][] = [
  ...(
    [
      ['args_get', ['i32', 'i32']],
      ['args_sizes_get', ['i32', 'i32']],
      ['environ_get', ['i32', 'i32']],
      ['environ_sizes_get', ['i32', 'i32']],
      ['clock_res_get', ['i32', 'i32']],
      ['clock_time_get', ['i32', 'i64', 'i32']],
      ['fd_advise', ['i32', 'i64', 'i64', 'i32']],
      ['fd_allocate', ['i32', 'i64', 'i64']],
      ['fd_close', ['i32']],
      ['fd_datasync', ['i32']],
      ['fd_fdstat_get', ['i32', 'i32']],
      ['fd_fdstat_set_flags', ['i32', 'i32']],
      ['fd_fdstat_set_rights', ['i32', 'i64', 'i64']],
      ['fd_filestat_get', ['i32', 'i32']],
      ['fd_filestat_set_size', ['i32', 'i64']],
      ['fd_filestat_set_times', ['i32', 'i64', 'i64', 'i32']],
      ['fd_pread', ['i32', 'i32', 'i32', 'i64', 'i32']],
      ['fd_prestat_get', ['i32', 'i32']],
      ['fd_prestat_dir_name', ['i32', 'i32', 'i32']],
      ['fd_pwrite', ['i32', 'i32', 'i32', 'i64', 'i32']],
      ['fd_read', ['i32', 'i32', 'i32', 'i32']],
      ['fd_readdir', ['i32', 'i32', 'i32', 'i64', 'i32']],
      ['fd_renumber', ['i32', 'i32']],
      ['fd_seek', ['i32', 'i64', 'i32', 'i32']],
      ['fd_sync', ['i32']],
      ['fd_tell', ['i32', 'i32']],
      ['fd_write', ['i32', 'i32', 'i32', 'i32']],
      ['poll_oneoff', ['i32', 'i32', 'i32', 'i32']],
      ['proc_raise', ['i32']],
      ['random_get', ['i32', 'i32']],
      ['sched_yield', []],
    ] as const
  ).map(
    ([name, params]) =>
      ['wasi_snapshot_preview1', name, [...params], 'i32'] as [string, string, Type[], Type],
  ),
  ['wasi_snapshot_preview1', 'proc_exit', ['i32'], null],
  ...(
    [
      ['alloc', ['i64'], 'i64'],
      ['free', ['i64'], null],
      ['length', ['i64'], 'i64'],
      ['length_unsafe', ['i64'], 'i64'],
      ['load_u8', ['i64'], 'i32'],
      ['load_u64', ['i64'], 'i64'],
      ['store_u8', ['i64', 'i32'], null],
      ['store_u64', ['i64', 'i64'], null],
      ['input_offset', [], 'i64'],
      ['input_length', [], 'i64'],
      ['input_load_u8', ['i64'], 'i32'],
      ['input_load_u64', ['i64'], 'i64'],
      ['output_set', ['i64', 'i64'], null],
      ['error_set', ['i64'], null],
      ['error_get', [], 'i64'],
      ['config_get', ['i64'], 'i64'],
      ['var_get', ['i64'], 'i64'],
      ['var_set', ['i64', 'i64'], null],
      ['http_request', ['i64', 'i64'], 'i64'],
      ['http_status_code', [], 'i32'],
      ['http_headers', [], 'i64'],
      ['log_warn', ['i64'], null],
      ['log_info', ['i64'], null],
      ['log_debug', ['i64'], null],
      ['log_error', ['i64'], null],
      ['log_trace', ['i64'], null],
      ['get_log_level', [], 'i32'],
    ] as const
  ).map(
    ([name, params, result]) =>
      ['extism:host/env', name, [...params], result] as [string, string, Type[], Type | null],
  ),
  ...HOST_FUNCTIONS.map(
    (name) => ['extism:host/user', name, ['i64'], 'i64'] as [string, string, Type[], Type],
  ),
];

const i32 = fc.oneof(
  fc.constantFrom(0, 1, 2, 3, 4, 8, 64, 0x1000, 0xfff8, 0x10000, -1, 0x7fffffff, -0x80000000),
  fc.integer({ min: -0x80000000, max: 0x7fffffff }),
);
const BLOCK = 1n << 48n;
const i64 = fc.oneof(
  fc.constantFrom('(i64.const 0)', '(i64.const -1)', `(i64.const ${BLOCK})`, `(i64.const ${BLOCK + 7n})`),
  fc.constantFrom(`(i64.const ${2n * BLOCK})`, '(i64.const 0x7fffffffffffffff)', '(i64.const 16)'),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((v) => `(i64.const ${v})`),
  fc.integer({ min: 0, max: 70_000 }).map((size) => `(call $env_alloc (i64.const ${size}))`),
);
/** A function's name in the module: its namespace's last word and its own (http_request is in two). */
const nameOf = (namespace: string, name: string) => `$${namespace.split(/[/_]/).pop()}_${name}`;

const callOf = fc.nat({ max: IMPORTS.length - 1 }).chain((index) => {
  const [namespace, name, params, result] = IMPORTS[index] as (typeof IMPORTS)[number];
  const args = params.map((type) => (type === 'i32' ? i32.map((v) => `(i32.const ${v})`) : i64));
  return fc.tuple(...args).map((values) => {
    const call = `(call ${nameOf(namespace, name)} ${values.join(' ')})`;
    return result ? `(drop ${call})` : call;
  });
});

function moduleOf(calls: string[]): Uint8Array {
  const imports = IMPORTS.map(
    ([namespace, name, params, result]) =>
      `(import "${namespace}" "${name}" (func ${nameOf(namespace, name)}${params.length ? ` (param ${params.join(' ')})` : ''}${result ? ` (result ${result})` : ''}))`,
  );
  return wat(`(module
  ${imports.join('\n  ')}
  (memory (export "memory") 1)
  (func (export "manifest") (result i32) (i32.const 0))
  (func (export "invoke") (result i32)
    ${calls.join('\n    ')}
    (i32.const 0)))`);
}

let platform: TestPlatform;
let runner: RunnerProcess;
const THREADS = 2;

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  runner = await startRunnerProcess(platform, {
    APP_RUNNER_CONCURRENCY: String(THREADS),
    APP_RUNNER_WARM_PLUGINS: '2',
  });
}, 120_000);
afterAll(async () => {
  await runner?.close();
  await platform?.close();
});

it('answers every call of modules calling every import with random arguments, and stays whole', async () => {
  const outcomes = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(fc.array(callOf, { minLength: 1, maxLength: 40 }), async (calls) => {
      const sha256 = await runner.store(moduleOf(calls), 16);
      const response = await runner.post('/v1/invoke', {
        module: { sha256 },
        call: { id: randomUUID(), tenantId: randomUUID() },
        action: 'fuzz',
        config: {},
        hosts: [],
        input: {},
        timeoutMs: 1_000,
      });
      // biome-ignore lint/suspicious/noExplicitAny: a runner answer, read field by field
      const body: any = await response.json();
      const outcome = response.status === 200 ? 'answered' : body.error?.code;
      expect(['answered', 'trapped', 'bad_output', 'timeout']).toContain(outcome);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }),
    { numRuns: 60 },
  );
  // The generator reaches more than one outcome (it is not all traps at the first call).
  expect(outcomes.size).toBeGreaterThan(1);
  expect(runner.alive()).toBe(true);
  const ready = await fetch(`${runner.url}/health/ready`);
  expect(ready.status).toBe(200);
  // Every thread a call ended was replaced: at least as many as the pool started with (one per core, THREADS
  // at most; calls side by side may have grown it).
  await waitForRunner(
    runner.url,
    (health) => health.threads >= threadsAtStart(THREADS) && health.inFlight === 0,
  );
}, 300_000);
