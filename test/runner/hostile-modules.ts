// Modules written by hand to attack the sandbox, one attack each, assembled from WebAssembly text at test
// time. Each answers {"status":"ok","output":{"n":N}} when its attack runs to the end (N: what it
// counted), or traps or runs out its deadline as its attack says; test/runner/sandbox.test.ts runs them
// through the real runner.
import { wat } from '../module/wat.ts';
import { ANSWER_FUNCTIONS, ANSWER_IMPORTS, Texts } from './wat-answers.ts';

/** Linear memory: WASI scratch, the answer being built (wat-answers.ts), then the static texts. */
export const SCRATCH = 0x1000;
const TEXTS_AT = 0x10000;
const PAGE = 0x10000;

export interface Hostile {
  /** Import clauses beyond the kernel's alloc, store_u8, load_u8, length and output_set. */
  imports?: string;
  /** The body of invoke before it answers; it may set $n, or trap, or never end. */
  body: string;
  /** More functions. */
  extra?: string;
  /** Texts the body names as `${text('...')}`. */
  texts?: (text: (value: string) => string) => void;
  /** WebAssembly features beyond wabt's defaults (tail calls, exceptions). */
  features?: Parameters<typeof wat>[1];
  /** Fields the manifest adds (memoryMiB, say). */
  manifest?: Record<string, unknown>;
  /** The name the memory is exported under; `memory` unless set. */
  memoryExport?: string;
}

/** Where a text was placed and how long it is, from the `(i32.const at) (i32.const length)` text() answers. */
export function placed(clause: string): [at: number, length: number] {
  const [, at, , length] = clause.match(/\d+/g) ?? [];
  return [Number(at), Number(length)];
}

/** A module whose invoke runs `body` and then answers {"status":"ok","output":{"n":$n}}. */
export function hostileModule(build: (text: (value: string) => string) => Hostile): Uint8Array {
  const texts = new Texts(TEXTS_AT);
  const built = build((value) => texts.add(value));
  const manifest = texts.add(
    JSON.stringify({
      interface: 2,
      name: 'hostile',
      version: '1.0.0',
      configSchema: { type: 'object' },
      actions: [{ name: 'attack' }],
      ...built.manifest,
    }),
  );
  const { imports = '', body, extra = '', features, memoryExport = 'memory' } = built;
  const opening = texts.add('{"status":"ok","output":{"n":');
  const closing = texts.add('}}');
  return wat(
    `
(module
  ${ANSWER_IMPORTS}
  (import "extism:host/env" "free" (func $free (param i64)))
  ${imports}
  (memory (export "${memoryExport}") ${Math.ceil(texts.next / PAGE) + 1})
  (global $n (mut i32) (i32.const 0))
  (global $out_len (mut i32) (i32.const 0))

  ${ANSWER_FUNCTIONS}

  (func (export "manifest") (result i32)
    (call $put ${manifest})
    (call $finish))

  (func (export "invoke") (result i32)
    ${body}
    (call $put ${opening})
    (call $put_num (global.get $n))
    (call $put ${closing})
    (call $finish))

  ${extra}
  ${texts.data}
)`,
    features,
  );
}

const wasi = (name: string, params: string, result = '(result i32)') =>
  `(import "wasi_snapshot_preview1" "${name}" (func $${name} (param ${params}) ${result}))`;

/**
 * Closes fd 1, fd 2 and tries to renumber them, then, until its deadline, watches fd 2 and fds 3 to 63:
 * any of them seen as other than a character device (0–2) or as a descriptor at all (3–63), or any
 * read from them, traps with `unreachable` at once. A write of a forged HTTP answer to fd 2 every round
 * would reach a client of the runner if fd 2 named one. Ends only at its deadline.
 */
export function descriptorWatcher(): Uint8Array {
  return hostileModule((text) => {
    const forged = text('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
    const [at, length] = placed(forged);
    return {
      imports: [
        wasi('fd_close', 'i32'),
        wasi('fd_renumber', 'i32 i32'),
        wasi('fd_filestat_get', 'i32 i32'),
        wasi('fd_read', 'i32 i32 i32 i32'),
        wasi('fd_write', 'i32 i32 i32 i32'),
      ].join('\n  '),
      extra: `
  ;; Traps unless fd is a character device with nothing to read, or (3 and above) no descriptor at all.
  (func $watch (param $fd i32)
    (if (i32.lt_u (local.get $fd) (i32.const 3))
      (then
        (if (call $fd_filestat_get (local.get $fd) (i32.const ${SCRATCH + 64})) (then unreachable))
        (if (i32.ne (i32.load8_u (i32.const ${SCRATCH + 64 + 16})) (i32.const 2)) (then unreachable)))
      (else
        (if (i32.ne (call $fd_filestat_get (local.get $fd) (i32.const ${SCRATCH + 64})) (i32.const 8))
          (then unreachable))))
    ;; A read into the scratch: nothing is ever there to read.
    (i32.store (i32.const ${SCRATCH + 16}) (i32.const ${SCRATCH + 256}))
    (i32.store (i32.const ${SCRATCH + 20}) (i32.const 256))
    (i32.store (i32.const ${SCRATCH + 24}) (i32.const 0))
    (drop (call $fd_read (local.get $fd) (i32.const ${SCRATCH + 16}) (i32.const 1) (i32.const ${SCRATCH + 24})))
    (if (i32.load (i32.const ${SCRATCH + 24})) (then unreachable))
    (drop (call $fd_write (local.get $fd) (i32.const ${SCRATCH}) (i32.const 1) (i32.const ${SCRATCH + 28}))))`,
      body: `
    (local $fd i32)
    (i32.store (i32.const ${SCRATCH}) (i32.const ${at}))
    (i32.store (i32.const ${SCRATCH + 4}) (i32.const ${length}))
    (if (i32.ne (call $fd_close (i32.const 1)) (i32.const 58)) (then unreachable))
    (if (i32.ne (call $fd_close (i32.const 2)) (i32.const 58)) (then unreachable))
    (if (i32.ne (call $fd_renumber (i32.const 1) (i32.const 2)) (i32.const 58)) (then unreachable))
    (loop $round
      (local.set $fd (i32.const 0))
      (loop $each
        (call $watch (local.get $fd))
        (local.set $fd (i32.add (local.get $fd) (i32.const 1)))
        (br_if $each (i32.lt_u (local.get $fd) (i32.const 64))))
      (br $round))`,
    };
  });
}

const MiB = 1024 * 1024;

/**
 * Builds one kernel block of `mib` MiB and hands it to log `times` times; answers n = the calls made and
 * `first`, the first answer as the host gave it.
 */
export function logFlood(mib: number, times: number): Uint8Array {
  return requestFlood({ fn: 'log', bytes: mib * MiB, first: '\0', second: '\0', fixes: [[0, '{']], times });
}

/** Eight bytes of `pattern` (two characters, repeated) as the little-endian u64 store_u64 writes. */
const u64Of = (pattern: string) =>
  `0x${Buffer.from(pattern.repeat(8 / pattern.length), 'latin1')
    .reverse()
    .toString('hex')}`;

/**
 * Hands one block of `bytes` bytes to the host function `fn` `times` times: its first half filled with
 * `first`, its second with `second` (one or two characters each), then `fixes` ([offset, character];
 * negative offsets from the end). Answers n = the requests made and `first`, the first answer.
 */
export function requestFlood(options: {
  fn: string;
  bytes: number;
  first: string;
  second: string;
  fixes?: [number, string][];
  times: number;
  /** Fields the manifest adds. */
  manifest?: Record<string, unknown>;
}): Uint8Array {
  const { fn, bytes, first, second, fixes = [], times, manifest: more } = options;
  const fixed = fixes
    .map(([at, char]) => {
      const offset = at < 0 ? bytes + at : at;
      return `(call $store_u8 (i64.add (local.get $block) (i64.const ${offset})) (i32.const ${char.charCodeAt(0)}))`;
    })
    .join('\n    ');
  return hostileModule((text) => ({
    ...(more ? { manifest: more } : {}),
    imports: `(import "extism:host/user" "${fn}" (func $host (param i64) (result i64)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))`,
    body: `
    (local $block i64) (local $at i64) (local $answer i64)
    (local.set $block (call $alloc (i64.const ${bytes})))
    (if (i64.eqz (local.get $block)) (then unreachable))
    (loop $fill
      (call $store_u64 (i64.add (local.get $block) (local.get $at))
        (select (i64.const ${u64Of(first)}) (i64.const ${u64Of(second)})
          (i64.lt_u (local.get $at) (i64.const ${bytes / 2}))))
      (local.set $at (i64.add (local.get $at) (i64.const 8)))
      (br_if $fill (i64.lt_u (local.get $at) (i64.const ${bytes}))))
    ${fixed}
    (loop $again
      (local.set $answer (call $host (local.get $block)))
      (if (i32.eqz (global.get $n))
        (then (call $put ${text('{"status":"ok","output":{"first":')}) (call $put_block (local.get $answer))
              (call $put ${text(',"n":')})))
      (call $free (local.get $answer))
      (global.set $n (i32.add (global.get $n) (i32.const 1)))
      (br_if $again (i32.lt_u (global.get $n) (i32.const ${times}))))
    (call $put_num (global.get $n))
    (call $put ${text('}}')})
    (return (call $finish))`,
  }));
}

/** Sets ever more variables of 1 MiB each (the value block freed after each), never ending by itself. */
export function variableBomb(): Uint8Array {
  return hostileModule(() => ({
    imports: '(import "extism:host/env" "var_set" (func $var_set (param i64 i64)))',
    body: `
    (local $key i64) (local $value i64)
    (loop $again
      (local.set $key (call $alloc (i64.const 4)))
      (call $store_u8 (local.get $key) (global.get $n))
      (call $store_u8 (i64.add (local.get $key) (i64.const 1)) (i32.shr_u (global.get $n) (i32.const 8)))
      (local.set $value (call $alloc (i64.const ${MiB})))
      (if (i64.eqz (local.get $value)) (then unreachable))
      (call $var_set (local.get $key) (local.get $value))
      (call $free (local.get $value))
      (call $free (local.get $key))
      (global.set $n (i32.add (global.get $n) (i32.const 1)))
      (br $again))`,
  }));
}

/**
 * Allocates blocks of `size` bytes until alloc answers 0, keeping them; answers n = how many it got. With
 * `write`, it then writes into the block alloc would have given next (the SDK's alloc kept it).
 */
export function allocationBomb(size: number, write = false): Uint8Array {
  return hostileModule(() => ({
    body: `
    (local $block i64) (local $last i64)
    (loop $again
      (local.set $block (call $alloc (i64.const ${size})))
      (if (i64.ne (local.get $block) (i64.const 0))
        (then
          (local.set $last (local.get $block))
          (global.set $n (i32.add (global.get $n) (i32.const 1)))
          (br $again))))
    ${write ? '(call $store_u8 (i64.add (local.get $last) (i64.shl (i64.const 1) (i64.const 48))) (i32.const 1))' : ''}
    ;; Room for the answer's own block.
    (call $free (local.get $last))`,
  }));
}

/** Asks poll_oneoff for one relative clock of `seconds`; answers n = 1 if it ever comes back. */
export function sleeper(seconds: number): Uint8Array {
  return hostileModule(() => ({
    imports: wasi('poll_oneoff', 'i32 i32 i32 i32'),
    body: `
    (i64.store (i32.const ${SCRATCH}) (i64.const 7))
    (i32.store8 (i32.const ${SCRATCH + 8}) (i32.const 0))
    (i32.store (i32.const ${SCRATCH + 16}) (i32.const 1))
    (i64.store (i32.const ${SCRATCH + 24}) (i64.const ${BigInt(seconds) * 1_000_000_000n}))
    (i32.store16 (i32.const ${SCRATCH + 40}) (i32.const 0))
    (if (call $poll_oneoff (i32.const ${SCRATCH}) (i32.const ${SCRATCH + 64}) (i32.const 1) (i32.const ${SCRATCH + 128}))
      (then unreachable))
    (global.set $n (i32.const 1))`,
  }));
}

/** Calls proc_exit(code). */
export function exiter(code: number): Uint8Array {
  return hostileModule(() => ({
    imports: '(import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))',
    body: `(call $proc_exit (i32.const ${code}))`,
  }));
}

/** Answers ok with an output string holding JSON nested `depth` arrays deep. */
export function deepStringAnswer(depth: number): Uint8Array {
  return hostileModule((text) => ({
    body: `
    (call $put ${text(`{"status":"ok","output":{"text":"${'['.repeat(depth)}${']'.repeat(depth)}"}}`)})
    (return (call $finish))`,
  }));
}

/** Answers n = 1; its start code (_initialize) grows its memory by `pages` first. */
export function growingStart(pages: number, memoryName = 'memory'): Uint8Array {
  return hostileModule(() => ({
    memoryExport: memoryName,
    body: '(global.set $n (i32.const 1))',
    extra: `(func (export "_initialize") (drop (memory.grow (i32.const ${pages}))))`,
  }));
}

/** A kernel block of `bytes` bytes, its address in $block (a local of the body), or a trap. */
const allocated = (bytes: number) => `
    (local.set $block (call $alloc (i64.const ${bytes})))
    (if (i64.eqz (local.get $block)) (then unreachable))`;

/** Stores byte `value` at [from, to) of the block in $block, `step` apart (locals $i and $block). */
const filled = (from: number, to: number, value: number, step = 1) => `
    (local.set $i (i64.const ${from}))
    (block $end (loop $fill
      (br_if $end (i64.ge_u (local.get $i) (i64.const ${to})))
      (call $store_u8 (i64.add (local.get $block) (local.get $i)) (i32.const ${value}))
      (local.set $i (i64.add (local.get $i) (i64.const ${step})))
      (br $fill)))`;

/**
 * Issue row 5: one variable name, U+FFFD × 1 Mi, in two spellings: 1 MiB of 0xFF, and a BOM then 1 Mi
 * truncated sequences F1 80 80 (3 MiB). Set by the short one and deleted by the long one, 80 times (a
 * kernel that gave back the key block passed now lifted its budget by 2 MiB each time), then alloc of
 * 64 MiB, 8 times: answers n = the allocations that succeeded.
 */
export function variableSpellings(): Uint8Array {
  const units = MiB;
  return hostileModule(() => ({
    imports: '(import "extism:host/env" "var_set" (func $var_set (param i64 i64)))',
    body: `
    (local $block i64) (local $i i64) (local $short i64) (local $long i64) (local $value i64) (local $round i32)
    ${allocated(units)}
    ${filled(0, units, 0xff)}
    (local.set $short (local.get $block))
    ${allocated(3 + 3 * units)}
    ${filled(3, 3 + 3 * units, 0x80)}
    ${filled(3, 3 + 3 * units, 0xf1, 3)}
    (call $store_u8 (local.get $block) (i32.const 0xef))
    (call $store_u8 (i64.add (local.get $block) (i64.const 1)) (i32.const 0xbb))
    (call $store_u8 (i64.add (local.get $block) (i64.const 2)) (i32.const 0xbf))
    (local.set $long (local.get $block))
    (local.set $value (call $alloc (i64.const 1)))
    (loop $again
      (call $var_set (local.get $short) (local.get $value))
      (call $var_set (local.get $long) (i64.const 0))
      (local.set $round (i32.add (local.get $round) (i32.const 1)))
      (br_if $again (i32.lt_u (local.get $round) (i32.const 80))))
    (call $free (local.get $short))
    (call $free (local.get $long))
    (local.set $round (i32.const 0))
    (loop $grab
      (if (i64.ne (call $alloc (i64.const ${64 * MiB})) (i64.const 0))
        (then (global.set $n (i32.add (global.get $n) (i32.const 1)))))
      (local.set $round (i32.add (local.get $round) (i32.const 1)))
      (br_if $grab (i32.lt_u (local.get $round) (i32.const 8))))`,
  }));
}

/**
 * A block of `mib` MiB starting with `start`, handed to error_set (the rest of the block is zeros);
 * `manifest`: fields the manifest adds.
 */
export function hugeError(mib: number, start = '', manifest?: Record<string, unknown>): Uint8Array {
  const bytes = new TextEncoder().encode(start);
  return hostileModule(() => ({
    ...(manifest ? { manifest } : {}),
    imports: '(import "extism:host/env" "error_set" (func $error_set (param i64)))',
    body: `
    (local $block i64) (local $i i64)
    ${allocated(mib * MiB)}
    ${[...bytes].map((b, i) => `(call $store_u8 (i64.add (local.get $block) (i64.const ${i})) (i32.const ${b}))`).join('\n    ')}
    (call $error_set (local.get $block))
    (return (i32.const 1))`,
  }));
}

/** A block of `mib` MiB handed to output_set whole. */
export function hugeOutput(mib: number): Uint8Array {
  return hostileModule(() => ({
    body: `
    (local $block i64)
    ${allocated(mib * MiB)}
    (call $output_set (local.get $block) (i64.const ${mib * MiB}))
    (return (i32.const 0))`,
  }));
}

/** Grows its memory to its cap and writes a byte on every 4 KiB page it grew; answers n = pages grown. */
export function memoryToucher(): Uint8Array {
  return hostileModule(() => ({
    body: `
    (local $at i32) (local $end i32) (local $step i32)
    (local.set $at (i32.mul (memory.size) (i32.const ${PAGE})))
    ;; The largest grows that succeed, halving: the cap in a few steps.
    (local.set $step (i32.const 65536))
    (loop $grow
      (if (i32.eq (memory.grow (local.get $step)) (i32.const -1))
        (then (local.set $step (i32.shr_u (local.get $step) (i32.const 1))))
        (else (global.set $n (i32.add (global.get $n) (local.get $step)))))
      (br_if $grow (local.get $step)))
    (local.set $end (i32.mul (memory.size) (i32.const ${PAGE})))
    (block $done (loop $touch
      (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
      (i32.store8 (local.get $at) (i32.const 1))
      (local.set $at (i32.add (local.get $at) (i32.const 4096)))
      (br $touch)))`,
  }));
}

/**
 * Grows its memory one page at a time until memory.grow refuses (its cap), touching each new page;
 * answers n = the pages it grew. Every grow is an allocation outside the thread's JavaScript heap.
 */
export function pageByPageGrower(): Uint8Array {
  return hostileModule(() => ({
    body: `
    (local $page i32)
    (block $full
      (loop $grow
        (local.set $page (memory.grow (i32.const 1)))
        (br_if $full (i32.eq (local.get $page) (i32.const -1)))
        (i32.store8 (i32.mul (local.get $page) (i32.const ${PAGE})) (i32.const 1))
        (global.set $n (i32.add (global.get $n) (i32.const 1)))
        (br $grow)))`,
  }));
}
