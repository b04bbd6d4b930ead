// What the hand-written test modules share: static texts placed in their memory, and the WebAssembly
// text of the functions that build an answer (bytes, numbers, kernel blocks) and hand it to the kernel.
// Their memory layout: a number's digits end at DIGITS_END, the answer is built from OUTPUT_AT.

export const DIGITS_END = 0x0f10;
export const OUTPUT_AT = 0x8000;
export const OUTPUT_MAX = 0x7000;

/** Static texts laid out from `start` (to `end` at most), each named by its position and length. */
export class Texts {
  readonly #segments: string[] = [];
  #next: number;

  constructor(
    start: number,
    private readonly end = Number.POSITIVE_INFINITY,
  ) {
    this.#next = start;
  }

  /** `(i32.const at) (i32.const length)` of the text, placed once. */
  add(text: string): string {
    const bytes = new TextEncoder().encode(text);
    const at = this.#next;
    this.#next += bytes.length;
    if (this.#next > this.end) throw new Error('the module texts outgrew their area');
    const escaped = [...bytes].map((b) => `\\${b.toString(16).padStart(2, '0')}`).join('');
    this.#segments.push(`(data (i32.const ${at}) "${escaped}")`);
    return `(i32.const ${at}) (i32.const ${bytes.length})`;
  }

  /** Where the next text would go. */
  get next(): number {
    return this.#next;
  }

  get data(): string {
    return this.#segments.join('\n  ');
  }
}

/** The kernel's functions ANSWER_FUNCTIONS call, imported under their own names. */
export const ANSWER_IMPORTS = `
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))`;

/**
 * $put_byte, $put (bytes of memory), $put_num (a number's digits), $put_block (a kernel block),
 * $block_of (memory into a new kernel block) and $finish (the answer as the output). They need
 * ANSWER_IMPORTS, and the global $out_len (mut i32).
 */
export const ANSWER_FUNCTIONS = `
  (func $put_byte (param $b i32)
    (if (i32.ge_u (global.get $out_len) (i32.const ${OUTPUT_MAX})) (then unreachable))
    (i32.store8 (i32.add (i32.const ${OUTPUT_AT}) (global.get $out_len)) (local.get $b))
    (global.set $out_len (i32.add (global.get $out_len) (i32.const 1))))

  (func $put (param $p i32) (param $n i32) (local $i i32)
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $put_byte (i32.load8_u (i32.add (local.get $p) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy))))

  (func $put_num (param $v i32) (local $at i32)
    (local.set $at (i32.const ${DIGITS_END}))
    (loop $digit
      (local.set $at (i32.sub (local.get $at) (i32.const 1)))
      (i32.store8 (local.get $at) (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (br_if $digit (local.get $v)))
    (call $put (local.get $at) (i32.sub (i32.const ${DIGITS_END}) (local.get $at))))

  ;; Appends a kernel block (a host function's answer) to the answer.
  (func $put_block (param $block i64) (local $i i64) (local $n i64)
    (local.set $n (call $length (local.get $block)))
    (block $done
      (loop $copy
        (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
        (call $put_byte (call $load_u8 (i64.add (local.get $block) (local.get $i))))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $copy))))

  ;; A new kernel block holding the n bytes at p.
  (func $block_of (param $p i32) (param $n i32) (result i64) (local $block i64) (local $i i32)
    (local.set $block (call $alloc (i64.extend_i32_u (local.get $n))))
    (block $done
      (loop $copy
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $store_u8 (i64.add (local.get $block) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $p) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $copy)))
    (local.get $block))

  (func $finish (result i32)
    (call $output_set
      (call $block_of (i32.const ${OUTPUT_AT}) (global.get $out_len))
      (i64.extend_i32_u (global.get $out_len)))
    (i32.const 0))`;
