// Modules for the runner's isolation tests, written in WebAssembly text and assembled at test time. They
// talk to the host through the Extism kernel only (extism:host/env: the input, blocks, the output) and
// the platform's http_request, so every byte they answer is built here, in the module.
import { appModule, wat } from '../module/wat.ts';
import { ANSWER_FUNCTIONS, ANSWER_IMPORTS, Texts } from './wat-answers.ts';

/** The kernel's functions that read the call's input. */
const INPUT_IMPORTS = `
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))`;

/** What the probe writes into its mutable global and into linear memory once it has read them. */
export const GLOBAL_MARK = 7001;
export const MEMORY_MARK = 7002;

/** Linear memory of the probe (its one 64 KiB starting page). */
const TEXT_END = 0x0f00; // static texts from 0; a number's digits, then the answer, as wat-answers.ts lays out
const INPUT_AT = 0x1000;
const INPUT_MAX = 0x7000;
/** The word the probe marks: no data segment covers it, so a fresh instance holds 0 there. */
const MARK_AT = 0xfff0;

/**
 * The isolation probe. invoke reads the envelope and acts on its action:
 * - state (and any action not below): answers what it finds in its global and its memory word, marks
 *   both, and answers them again after marking:
 *   {"status":"ok","output":{"global":G,"memory":M,"after":{"global":7001,"memory":7002}}}
 * - fetch: as state, then sends the envelope's input (the last member) as the request of http_request
 *   and adds "answer": the host's answer, as it came.
 * - trap: marks both, then traps (unreachable).
 * - bomb: marks both, grows its memory a page at a time until growing fails, then writes into the page
 *   it assumed it got (a memory access out of bounds).
 * - measure: grows its memory until growing fails; answers {"pages":N}, the pages it reached.
 * - spin: loops forever.
 */
export function probeModule(): Uint8Array {
  const texts = new Texts(0, TEXT_END);
  const manifest = texts.add(
    JSON.stringify({
      interface: 2,
      name: 'isolation-probe',
      version: '1.0.0',
      configSchema: { type: 'object' },
      actions: ['state', 'fetch', 'trap', 'bomb', 'measure', 'spin'].map((name) => ({ name })),
    }),
  );
  const action = (name: string) => texts.add(`"action":"${name}"`);
  const inputKey = '"input":';
  const text = `
(module
  ${INPUT_IMPORTS}
  ${ANSWER_IMPORTS}
  (import "extism:host/user" "http_request" (func $http_request (param i64) (result i64)))
  (memory (export "memory") 1)
  (global $mark (mut i32) (i32.const 0))
  (global $in_len (mut i32) (i32.const 0))
  (global $out_len (mut i32) (i32.const 0))

  (func $read_input (local $i i32) (local $n i32)
    (local.set $n (i32.wrap_i64 (call $input_length)))
    (if (i32.gt_u (local.get $n) (i32.const ${INPUT_MAX})) (then unreachable))
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store8 (i32.add (i32.const ${INPUT_AT}) (local.get $i))
          (call $input_load_u8 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy)))
    (global.set $in_len (local.get $n)))

  ;; Where the n bytes at p first stand in the input, or -1.
  (func $find (param $p i32) (param $n i32) (result i32) (local $at i32) (local $j i32)
    (block $none
      (loop $next
        (br_if $none (i32.gt_u (i32.add (local.get $at) (local.get $n)) (global.get $in_len)))
        (local.set $j (i32.const 0))
        (block $differ
          (loop $compare
            (if (i32.eq (local.get $j) (local.get $n)) (then (return (local.get $at))))
            (br_if $differ
              (i32.ne
                (i32.load8_u (i32.add (i32.const ${INPUT_AT}) (i32.add (local.get $at) (local.get $j))))
                (i32.load8_u (i32.add (local.get $p) (local.get $j)))))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $compare)))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (br $next)))
    (i32.const -1))

  (func $has (param $p i32) (param $n i32) (result i32)
    (i32.ge_s (call $find (local.get $p) (local.get $n)) (i32.const 0)))

  ${ANSWER_FUNCTIONS}

  (func $mark
    (global.set $mark (i32.const ${GLOBAL_MARK}))
    (i32.store (i32.const ${MARK_AT}) (i32.const ${MEMORY_MARK})))

  (func $grow_until_refused
    (loop $more (br_if $more (i32.ne (memory.grow (i32.const 1)) (i32.const -1)))))

  (func (export "manifest") (result i32)
    (call $put ${manifest})
    (call $finish))

  (func (export "invoke") (result i32) (local $global i32) (local $memory i32) (local $at i32)
    ;; Its own bookkeeping starts over, so an instance run twice would answer what it found plainly.
    (global.set $out_len (i32.const 0))
    (call $read_input)
    (local.set $global (global.get $mark))
    (local.set $memory (i32.load (i32.const ${MARK_AT})))
    (if (call $has ${action('spin')}) (then (loop $forever (br $forever))))
    (if (call $has ${action('trap')}) (then (call $mark) unreachable))
    (if (call $has ${action('bomb')})
      (then
        (call $mark)
        (call $grow_until_refused)
        (i32.store (i32.mul (memory.size) (i32.const 65536)) (i32.const 1))
        unreachable))
    (if (call $has ${action('measure')})
      (then
        (call $grow_until_refused)
        (call $put ${texts.add('{"status":"ok","output":{"pages":')})
        (call $put_num (memory.size))
        (call $put ${texts.add('}}')})
        (return (call $finish))))
    (call $put ${texts.add('{"status":"ok","output":{"global":')})
    (call $put_num (local.get $global))
    (call $put ${texts.add(',"memory":')})
    (call $put_num (local.get $memory))
    (call $mark)
    (call $put ${texts.add(',"after":{"global":')})
    (call $put_num (global.get $mark))
    (call $put ${texts.add(',"memory":')})
    (call $put_num (i32.load (i32.const ${MARK_AT})))
    (call $put ${texts.add('}')})
    (if (call $has ${action('fetch')})
      (then
        ;; The input is the envelope's last member: from after "input": to the closing brace.
        (local.set $at (call $find ${texts.add(inputKey)}))
        (if (i32.lt_s (local.get $at) (i32.const 0)) (then unreachable))
        (local.set $at (i32.add (local.get $at) (i32.const ${inputKey.length})))
        (call $put ${texts.add(',"answer":')})
        (call $put_block
          (call $http_request
            (call $block_of
              (i32.add (i32.const ${INPUT_AT}) (local.get $at))
              (i32.sub (i32.sub (global.get $in_len) (local.get $at)) (i32.const 1)))))))
    (call $put ${texts.add('}}')})
    (call $finish))

  ${texts.data}
)`;
  return wat(text);
}

/**
 * A module whose start code never ends: a WebAssembly start function, or an exported _initialize (what
 * the plugin host runs when it makes the instance). Its exports would answer nothing; they never run.
 */
export function loopingStartModule(kind: 'start' | '_initialize'): Uint8Array {
  const loop = '(loop $forever (br $forever))';
  return appModule({
    extra:
      kind === 'start' ? `(func $forever ${loop}) (start $forever)` : `(func (export "_initialize") ${loop})`,
  });
}

/**
 * A module that answers its envelope byte for byte: {"status":"ok","output":ENVELOPE}, the input copied
 * from the kernel's input block into memory behind the prefix as it is, never decoded, and handed back
 * as one block. What the runner hands a module is then read back exactly, whatever its letters and size.
 */
export function envelopeEcho(): Uint8Array {
  const prefix = '{"status":"ok","output":';
  const texts = new Texts(0);
  texts.add(prefix);
  const text = `
(module
  ${INPUT_IMPORTS}
  ${ANSWER_IMPORTS}
  (memory (export "memory") 1)
  (global $out_len (mut i32) (i32.const 0))

  ${ANSWER_FUNCTIONS}

  (func (export "manifest") (result i32) (i32.const 0))

  (func (export "invoke") (result i32) (local $n i32) (local $i i32) (local $end i32)
    (local.set $n (i32.wrap_i64 (call $input_length)))
    (local.set $end (i32.add (i32.const ${prefix.length + 1}) (local.get $n)))
    (if (i32.eq (memory.grow (i32.div_u (local.get $end) (i32.const 65536))) (i32.const -1)) (then unreachable))
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store8 (i32.add (i32.const ${prefix.length}) (local.get $i))
          (call $input_load_u8 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy)))
    (i32.store8 (i32.add (i32.const ${prefix.length}) (local.get $n)) (i32.const 125))
    (call $output_set (call $block_of (i32.const 0) (local.get $end)) (i64.extend_i32_u (local.get $end)))
    (i32.const 0))

  ${texts.data}
)`;
  return wat(text);
}
