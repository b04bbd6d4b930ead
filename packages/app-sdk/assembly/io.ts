// Bytes between the module and the Extism kernel: the call's input, its output, and the blocks host
// functions read and answer. The PDK's Host.outputString sizes its block by UTF-16 length, which is
// wrong for any text that is not ASCII; everything here counts UTF-8 bytes and moves 8 bytes a call.
import {
  alloc,
  free,
  input_length,
  input_load_u64,
  input_load_u8,
  length,
  load_u64,
  load_u8,
  output_set,
  store_u64,
  store_u8,
} from '@extism/as-pdk/lib/env';

/** UTF-8 bytes of a text. */
export function utf8(text: string): Uint8Array {
  return Uint8Array.wrap(String.UTF8.encode(text));
}

/** Text of UTF-8 bytes (invalid sequences become U+FFFD). */
export function fromUtf8(bytes: Uint8Array): string {
  return String.UTF8.decodeUnsafe(bytes.dataStart, <usize>bytes.length);
}

/** The call's input bytes. */
export function inputBytes(): Uint8Array {
  const n = <i32>input_length();
  const bytes = new Uint8Array(n);
  const base = bytes.dataStart;
  let k = 0;
  for (; k + 8 <= n; k += 8) store<u64>(base + <usize>k, input_load_u64(<u64>k));
  for (; k < n; k++) store<u8>(base + <usize>k, input_load_u8(<u64>k));
  return bytes;
}

/** The call's input as text. */
export function inputText(): string {
  return fromUtf8(inputBytes());
}

/** Copies bytes into a new kernel block; answers its offset. */
export function toBlock(bytes: Uint8Array): u64 {
  const n = bytes.length;
  const offset = alloc(<u64>n);
  const base = bytes.dataStart;
  let k = 0;
  for (; k + 8 <= n; k += 8) store_u64(offset + <u64>k, load<u64>(base + <usize>k));
  for (; k < n; k++) store_u8(offset + <u64>k, load<u8>(base + <usize>k));
  return offset;
}

/** The bytes of a kernel block. */
export function fromBlock(offset: u64): Uint8Array {
  const n = <i32>length(offset);
  const bytes = new Uint8Array(n);
  const base = bytes.dataStart;
  let k = 0;
  for (; k + 8 <= n; k += 8) store<u64>(base + <usize>k, load_u64(offset + <u64>k));
  for (; k < n; k++) store<u8>(base + <usize>k, load_u8(offset + <u64>k));
  return bytes;
}

export function freeBlock(offset: u64): void {
  if (offset != 0) free(offset);
}

/** Sets the call's output to the text; answers 0, what an export returns on success. */
export function outputText(text: string): i32 {
  const bytes = utf8(text);
  output_set(toBlock(bytes), <u64>bytes.length);
  return 0;
}
