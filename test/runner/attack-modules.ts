// Modules written by hand to take a share of the runner from other tenants, one attack each (issue 43,
// item 6): assembled from WebAssembly text at bench or test time with hostile-modules.ts's builder, the
// compile bomb's body spliced in as bytes (wabt would parse 2.5M nested blocks recursively). Each runs
// its `attack` action; bench/runner-attacks.ts runs them beside a neighbour, tests may run them alone.
import { encodeU32, SECTION, sections } from '../../src/module/binary.ts';
import { hugeError as errorOnBlock, hostileModule, placed, requestFlood } from './hostile-modules.ts';

const MiB = 1024 * 1024;
const PAGE = 65_536;

/** A manifest the upload accepts (the action declared in full), with `more` fields. */
const manifest = (more: Record<string, unknown> = {}) => ({
  actions: [
    {
      name: 'attack',
      input: { type: 'object' },
      output: { type: 'object' },
      timeoutMs: 30_000,
      idempotent: true,
    },
  ],
  ...more,
});

const kernel = (name: string, params: string, result = '') =>
  `(import "extism:host/env" "${name}" (func $${name} (param ${params}) ${result}))`;
const host = (name: string) =>
  `(import "extism:host/user" "${name}" (func $${name} (param i64) (result i64)))`;

/**
 * $copy_out: `length` bytes of linear memory from `at` into a new kernel block, 8 at a time, then byte by
 * byte; its address (traps when the kernel refuses the block). Needs alloc, store_u8 and store_u64.
 */
const COPY_OUT = `
  (func $copy_out (param $at i32) (param $length i32) (result i64) (local $block i64) (local $i i32)
    (local.set $block (call $alloc (i64.extend_i32_u (local.get $length))))
    (if (i64.eqz (local.get $block)) (then unreachable))
    (block $words
      (loop $word
        (br_if $words (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $length)))
        (call $store_u64 (i64.add (local.get $block) (i64.extend_i32_u (local.get $i)))
          (i64.load (i32.add (local.get $at) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $word)))
    (block $bytes
      (loop $byte
        (br_if $bytes (i32.ge_u (local.get $i) (local.get $length)))
        (call $store_u8 (i64.add (local.get $block) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $at) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $byte)))
    (local.get $block))`;

/** Attack 1: invoke tail-calls itself for ever (return_call: no stack grows), until its deadline. */
export function tailCallLoop(): Uint8Array {
  return hostileModule(() => ({
    manifest: manifest(),
    body: '(call $spin)',
    extra: '(func $spin (return_call $spin))',
    features: { tail_call: true },
  }));
}

/**
 * Attack 2: one kernel block of `half` `[` then `half` `]` (12,000,000 bytes at the default: within
 * hmac's 12 MiB request bound), handed to hmac `times` times (the host's 1,000 requests a call at most).
 * Before issue 43 the main thread parsed each as JSON nested `half` deep; now its own thread refuses it.
 */
export function deepHmacRequests(half = 6_000_000, times = 1000): Uint8Array {
  return requestFlood({ fn: 'hmac', bytes: 2 * half, first: '[', second: ']', times, manifest: manifest() });
}

/**
 * Attack 3: answers {"status":"ok","output":{"texts":[...]}} with `count` strings, each JSON nested
 * `depth` deep (`[`×depth then `]`×depth): 525 × 999 is about 1 MiB of answer, every string within the
 * runner's 1,000 levels, so each is parsed to its end. Built in linear memory, handed over as one block.
 */
export function deepStringsAnswer(count = 525, depth = 999): Uint8Array {
  const size = 40 + count * (2 * depth + 3);
  const pages = Math.ceil(size / PAGE) + 1;
  return hostileModule((text) => {
    const [openAt, openLength] = placed(text('{"status":"ok","output":{"texts":['));
    return {
      manifest: manifest(),
      imports: kernel('store_u64', 'i64 i64'),
      body: `
    (local $start i32) (local $at i32) (local $i i32) (local $length i32)
    (local.set $start (i32.mul (memory.grow (i32.const ${pages})) (i32.const ${PAGE})))
    (if (i32.lt_s (local.get $start) (i32.const 0)) (then unreachable))
    (memory.copy (local.get $start) (i32.const ${openAt}) (i32.const ${openLength}))
    (local.set $at (i32.add (local.get $start) (i32.const ${openLength})))
    (loop $string
      (i32.store8 (local.get $at) (i32.const 34))
      (memory.fill (i32.add (local.get $at) (i32.const 1)) (i32.const 91) (i32.const ${depth}))
      (memory.fill (i32.add (local.get $at) (i32.const ${1 + depth})) (i32.const 93) (i32.const ${depth}))
      (i32.store8 (i32.add (local.get $at) (i32.const ${1 + 2 * depth})) (i32.const 34))
      (i32.store8 (i32.add (local.get $at) (i32.const ${2 + 2 * depth})) (i32.const 44))
      (local.set $at (i32.add (local.get $at) (i32.const ${3 + 2 * depth})))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $string (i32.lt_u (local.get $i) (i32.const ${count}))))
    ;; The last comma becomes the end of the list; then the answer's end.
    (i32.store8 (i32.sub (local.get $at) (i32.const 1)) (i32.const 93))
    (i32.store8 (local.get $at) (i32.const 125))
    (i32.store8 (i32.add (local.get $at) (i32.const 1)) (i32.const 125))
    (local.set $length (i32.sub (i32.add (local.get $at) (i32.const 2)) (local.get $start)))
    (call $output_set (call $copy_out (local.get $start) (local.get $length))
      (i64.extend_i32_u (local.get $length)))
    (return (i32.const 0))`,
      extra: COPY_OUT,
    };
  });
}

/** Attack 4: error_set on a kernel block of `mib` MiB (zeros): the error text the runner reads. */
export function hugeError(mib = 250, memoryMiB = 256): Uint8Array {
  return errorOnBlock(mib, '', manifest({ memoryMiB }));
}

/**
 * Attack 5: var_set under two keys that decode to the same text, `keyChars` U+FFFD each: `keyChars`
 * bytes 0xFF, and a byte order mark then `keyChars` times F1 80 80 (an unfinished sequence). Set under
 * the short key, deleted under the long one, `rounds` times: if the kernel counts the key as given
 * rather than as stored, each round takes 2 × keyChars + 3 bytes off what the call holds. Then `blocks`
 * allocs of `blockMiB` MiB, each page written; answers n = the blocks the kernel gave.
 */
export function collidingVariables(keyChars = MiB, rounds = 260, blocks = 8, blockMiB = 64): Uint8Array {
  const longLength = 3 + 3 * keyChars;
  const pages = Math.ceil((keyChars + longLength + 64) / PAGE) + 1;
  return hostileModule(() => ({
    manifest: manifest(),
    imports: [kernel('store_u64', 'i64 i64'), kernel('var_set', 'i64 i64')].join('\n  '),
    body: `
    (local $short i32) (local $long i32) (local $i i32) (local $shortKey i64) (local $longKey i64)
    (local $value i64) (local $block i64) (local $page i64)
    (local.set $short (i32.mul (memory.grow (i32.const ${pages})) (i32.const ${PAGE})))
    (if (i32.lt_s (local.get $short) (i32.const 0)) (then unreachable))
    (local.set $long (i32.add (local.get $short) (i32.const ${keyChars})))
    (memory.fill (local.get $short) (i32.const 0xff) (i32.const ${keyChars}))
    (i32.store8 (local.get $long) (i32.const 0xef))
    (i32.store8 (i32.add (local.get $long) (i32.const 1)) (i32.const 0xbb))
    (i32.store8 (i32.add (local.get $long) (i32.const 2)) (i32.const 0xbf))
    (loop $sequence
      (i32.store8 (i32.add (local.get $long) (i32.add (i32.const 3) (local.get $i))) (i32.const 0xf1))
      (i32.store8 (i32.add (local.get $long) (i32.add (i32.const 4) (local.get $i))) (i32.const 0x80))
      (i32.store8 (i32.add (local.get $long) (i32.add (i32.const 5) (local.get $i))) (i32.const 0x80))
      (local.set $i (i32.add (local.get $i) (i32.const 3)))
      (br_if $sequence (i32.lt_u (local.get $i) (i32.const ${3 * keyChars}))))
    (local.set $shortKey (call $copy_out (local.get $short) (i32.const ${keyChars})))
    (local.set $longKey (call $copy_out (local.get $long) (i32.const ${longLength})))
    (local.set $value (call $alloc (i64.const 1)))
    (local.set $i (i32.const 0))
    (loop $round
      (call $var_set (local.get $shortKey) (local.get $value))
      (call $var_set (local.get $longKey) (i64.const 0))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $round (i32.lt_u (local.get $i) (i32.const ${rounds}))))
    (local.set $i (i32.const 0))
    (loop $allocate
      (local.set $block (call $alloc (i64.const ${blockMiB * MiB})))
      (if (i64.ne (local.get $block) (i64.const 0))
        (then
          (global.set $n (i32.add (global.get $n) (i32.const 1)))
          (local.set $page (i64.const 0))
          (loop $touch
            (call $store_u8 (i64.add (local.get $block) (local.get $page)) (i32.const 1))
            (local.set $page (i64.add (local.get $page) (i64.const 4096)))
            (br_if $touch (i64.lt_u (local.get $page) (i64.const ${blockMiB * MiB}))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $allocate (i32.lt_u (local.get $i) (i32.const ${blocks}))))`,
    extra: COPY_OUT,
  }));
}

/**
 * Attack 6: memory exported as `mem` (not `memory`), start code (_initialize) growing it to `pages`
 * pages and writing each 4 KiB of it: a warm instance holding that much while it waits, should the
 * runner look for the memory by its usual name only. `variant` makes distinct modules (warm per module).
 */
export function hiddenMemoryStart(pages = 4096, variant = 0): Uint8Array {
  return hostileModule(() => ({
    memoryExport: 'mem',
    manifest: manifest({ memoryMiB: Math.ceil(pages / 16), version: `1.0.${variant}` }),
    body: '(global.set $n (i32.const 1))',
    extra: `
  (func (export "_initialize") (local $at i32)
    ;; From the first page grown: the texts and the answer's area below stay as they are.
    (local.set $at (i32.mul (memory.size) (i32.const ${PAGE})))
    (drop (memory.grow (i32.sub (i32.const ${pages}) (memory.size))))
    (loop $touch
      (i32.store8 (local.get $at) (i32.const 1))
      (local.set $at (i32.add (local.get $at) (i32.const 4096)))
      (br_if $touch (i32.lt_u (local.get $at) (i32.mul (memory.size) (i32.const ${PAGE}))))))`,
  }));
}

/**
 * Attack 7: `count` mutable exnref globals, each set by invoke to a caught exception whose tag carries
 * `lanes` v128 values (16 KB a payload at 1,000): memory in the thread's heap, outside linear memory and
 * the kernel's budget. 9,998 beside the builder's own two globals is the 10,000 globals bound.
 */
export function exnrefGlobals(count = 9998, lanes = 1000): Uint8Array {
  const globals = Array.from({ length: count }, (_, i) => `(global $e${i} (mut exnref) (ref.null exn))`);
  const catches = Array.from(
    { length: count },
    (_, i) =>
      `(global.set $e${i} (block $h${i} (result exnref) (try_table (catch_all_ref $h${i}) (call $raise)) unreachable))`,
  );
  return hostileModule(() => ({
    manifest: manifest(),
    features: { exceptions: true },
    body: `${catches.join('\n    ')}
    (global.set $n (i32.const ${count}))`,
    extra: `
  (tag $big (param ${'v128 '.repeat(lanes)}))
  ${globals.join('\n  ')}
  (func $raise ${'(v128.const i64x2 1 2) '.repeat(lanes)} (throw $big))`,
  }));
}

/**
 * Attack 8: invoke calls one function of `depth` nested empty blocks (3 bytes a level: 7.5 MB at
 * 2.5M), a compile bomb for whoever validates or compiles it. The body is spliced into the code section.
 */
export function nestedBlocks(depth = 2_500_000): Uint8Array {
  const base = hostileModule(() => ({ manifest: manifest(), body: '(call $bomb)', extra: '(func $bomb)' }));
  const body = new Uint8Array(2 + 3 * depth);
  body[0] = 0; // no locals
  for (let i = 0; i < depth; i++) {
    body[1 + 2 * i] = 0x02; // block
    body[2 + 2 * i] = 0x40; // of no result
  }
  body.fill(0x0b, 1 + 2 * depth); // the blocks' ends, then the function's
  return withLastBody(base, body);
}

/** The module with the last function body of its code section replaced. */
function withLastBody(module: Uint8Array, body: Uint8Array): Uint8Array {
  const code = sections(module).find((section) => section.id === SECTION.code);
  if (!code) throw new Error('the module has no code section');
  let at = code.contentStart;
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = module[at++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  const count = leb();
  for (let i = 0; i < count - 1; i++) {
    const size = leb();
    at += size;
  }
  const kept = module.subarray(code.contentStart, at);
  const content = [...kept, ...encodeU32(body.length)];
  const size = content.length + body.length;
  return Buffer.concat([
    module.subarray(0, code.start),
    Uint8Array.from([SECTION.code, ...encodeU32(size), ...content]),
    body,
    module.subarray(code.end),
  ]);
}

/**
 * The log flood: one request of about 16,000 bytes (within log's 16 KiB bound: the main thread reads it
 * whole, the log keeps 2,000 characters of 200 lines) sent `times` times. Answers n = the requests made.
 */
export function logFloodWithinBounds(chars = 16_000, times = 1000): Uint8Array {
  return hostileModule((text) => {
    const request = text(`{"level":"info","message":"${'x'.repeat(chars)}"}`);
    return {
      manifest: manifest(),
      imports: [kernel('store_u64', 'i64 i64'), host('log')].join('\n  '),
      body: `
    (local $block i64)
    (local.set $block (call $copy_out ${request}))
    (loop $again
      (call $free (call $log (local.get $block)))
      (global.set $n (i32.add (global.get $n) (i32.const 1)))
      (br_if $again (i32.lt_u (global.get $n) (i32.const ${times}))))`,
      extra: COPY_OUT,
    };
  });
}

/** Answers `answer` as it is, of any length: its text lands in the module's data, copied to one block. */
export function staticAnswer(answer: string): Uint8Array {
  return hostileModule((text) => {
    const [at, length] = placed(text(answer));
    return {
      body: `
    (call $output_set (call $block_of (i32.const ${at}) (i32.const ${length})) (i64.const ${length}))
    (return (i32.const 0))`,
    };
  });
}
