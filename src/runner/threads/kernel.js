// The Extism kernel (extism:host/env) for one sandbox instance: the call's input, the blocks the module
// and the host functions exchange bytes through, the output or error, and the module's variables. The
// module contract is Extism's, so the functions and their addressing are Extism's (a block's index in
// the top 16 bits of an address, the offset inside it in the low 48). The SDK's own kernel is not used:
// its variables had no bound, its alloc kept a block past the memory cap (returning 0 while the block
// stayed writable by its index) and its block list only grew. Here every byte the kernel holds for the
// module (blocks, variables and their names) counts against one budget, the instance's memoryMiB; a block
// also counts a fixed overhead, so empty blocks are bounded too; freed indices are reused. A variable is
// charged for what is stored (its decoded name and its value), and gives back exactly what it was charged.
//
// Plain JavaScript, loaded by the sandbox thread (thread-entry.js).

/** What a block costs besides its bytes (its record and view), counted against the budget. */
export const BLOCK_OVERHEAD_BYTES = 64;
/** Blocks alive at once: an address has 16 bits for the index, and index 0 is the null address. */
export const MAX_BLOCKS = 65_535;
/** Variables at once: each is a JavaScript object of its own, whatever the bytes it holds. */
export const MAX_VARIABLES = 65_535;
/**
 * The bytes of an error block decoded: its text is redacted on its thread (thread-call.ts), then cut to 2,000
 * characters. 64 KiB is at least 21,845 characters, so a secret spelling cut in two here lands in the
 * first 2,000 only if redaction shrank the 64 KiB before it tenfold, i.e. the text is made almost wholly of
 * complete spellings of the call's values, which only a module that knows them writes (and such a module
 * can spell them in ways no redaction finds). Decoding the whole block cost seconds and GiBs at 250 MiB.
 */
export const ERROR_TEXT_BYTES = 64 * 1024;
/** The largest output read as an answer (answer.ts's MAX_ANSWER_BYTES); a larger one is only measured. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;
const OFFSET_BITS = 48n;
const OFFSET_MASK = (1n << OFFSET_BITS) - 1n;
/** What get_log_level answers: above every level, so a module does not format log text for no one. */
const LOG_LEVEL_OFF = 0xffffffff;

/** A limit of the kernel reached where the module cannot be answered with 0: the call traps. */
export class KernelLimit extends Error {
  constructor(message) {
    super(message);
    this.name = 'KernelLimit';
  }
}

const addressOf = (index) => BigInt(index) << OFFSET_BITS;
const indexOf = (address) => Number(BigInt.asUintN(64, address) >> OFFSET_BITS);
const offsetOf = (address) => Number(BigInt.asUintN(64, address) & OFFSET_MASK);

/**
 * The kernel of one instance. budgetBytes: what its blocks and variables may hold together (the
 * memoryMiB of the module). The input is empty until begin() hands the call's (counted like any block):
 * start code runs before a call is bound.
 */
export function createKernel({ budgetBytes }) {
  /** Blocks by index: { bytes: Uint8Array, view: DataView }; index 0 is never used. */
  const blocks = [undefined];
  const freeIndices = [];
  const variables = new Map();
  let used = 0;
  /** All it was ever charged: freed blocks and replaced variables stay in the heap until a collection. */
  let charged = 0;
  let output = null;
  let errorIndex = 0;
  const EMPTY_BLOCK = { bytes: new Uint8Array(), view: new DataView(new ArrayBuffer(0)) };
  let inputIndex = 0;
  let inputBlock = EMPTY_BLOCK;

  const cost = (bytes) => bytes + BLOCK_OVERHEAD_BYTES;
  function charge(bytes) {
    used += bytes;
    charged += bytes;
  }
  function refund(bytes) {
    used -= bytes;
    // Every refund is of a charge made: below zero is a bug that would lift the budget.
    if (used < 0) throw new Error(`kernel accounting went below zero (${used})`);
  }

  /** A new block of `size` bytes, or 0 when the budget or the addresses would be passed (nothing kept). */
  function allocate(size) {
    if (!Number.isSafeInteger(size) || size < 0 || used + cost(size) > budgetBytes) return 0;
    const index = freeIndices.pop() ?? (blocks.length <= MAX_BLOCKS ? blocks.length : 0);
    if (index === 0) return 0;
    const bytes = new Uint8Array(size);
    blocks[index] = { bytes, view: new DataView(bytes.buffer) };
    charge(cost(size));
    return index;
  }

  function release(index) {
    const block = blocks[index];
    if (index === 0 || !block) return;
    refund(cost(block.bytes.byteLength));
    blocks[index] = undefined;
    freeIndices.push(index);
    // What named the block names nothing now, not whatever block takes the index next.
    if (index === inputIndex) {
      inputIndex = 0;
      inputBlock = EMPTY_BLOCK;
    }
    if (index === errorIndex) errorIndex = 0;
    if (index === output?.index) output = null;
  }

  function blockAt(address) {
    return blocks[indexOf(address)];
  }

  /** The block an access names, the access checked to lie inside it: a trap otherwise. */
  function accessed(address, width, what) {
    const block = blockAt(address);
    const offset = offsetOf(address);
    if (!block || offset + width > block.bytes.byteLength) {
      throw new KernelLimit(`${what} outside any block the module holds`);
    }
    return { block, offset };
  }

  /** Bytes copied into a new block; its address, or 0 when they do not fit. */
  function store(bytes) {
    const index = allocate(bytes.byteLength);
    if (index === 0) return 0n;
    blocks[index].bytes.set(bytes);
    return addressOf(index);
  }

  const decoder = new TextDecoder();

  function inputAt(address, width) {
    const offset = offsetOf(address);
    if (offset + width > inputBlock.bytes.byteLength) throw new KernelLimit('input read past its end');
    return offset;
  }

  /**
   * A variable is named by its decoded key, which many key blocks spell (invalid bytes, a leading BOM):
   * it is charged what it stores, 2 bytes a UTF-16 unit of its name (V8 keeps at most that) plus its
   * value and the overhead, and a replacement or deletion gives back that charge, not one of the key now.
   */
  function setVariable(keyAddress, valueAddress) {
    const keyBlock = blockAt(keyAddress);
    if (!keyBlock) return;
    const key = decoder.decode(keyBlock.bytes);
    const previous = variables.get(key);
    const previousCost = previous?.cost ?? 0;
    if (valueAddress === 0n) {
      if (!previous) return;
      variables.delete(key);
      refund(previousCost);
      return;
    }
    const value = blockAt(valueAddress);
    if (!value) return;
    const added = cost(value.bytes.byteLength + 2 * key.length);
    if (used - previousCost + added > budgetBytes) {
      throw new KernelLimit(`var_set: the call's memory limit of ${budgetBytes / 1048576} MiB is reached`);
    }
    if (!previous && variables.size >= MAX_VARIABLES) {
      throw new KernelLimit(`var_set: at most ${MAX_VARIABLES} variables`);
    }
    refund(previousCost);
    charge(added);
    variables.set(key, { bytes: value.bytes.slice(), cost: added });
  }

  const discardLog = (address) => release(indexOf(address));

  // No prototype: a module importing `constructor` or `toString` finds nothing to link.
  const imports = Object.assign(Object.create(null), {
    alloc: (size) => addressOf(allocate(Number(size))),
    free: (address) => release(indexOf(address)),
    length: (address) => BigInt(blockAt(address)?.bytes.byteLength ?? 0),
    length_unsafe: (address) => BigInt(blockAt(address)?.bytes.byteLength ?? 0),
    load_u8: (address) => {
      const { block, offset } = accessed(address, 1, 'load_u8');
      return block.bytes[offset];
    },
    load_u64: (address) => {
      const { block, offset } = accessed(address, 8, 'load_u64');
      return block.view.getBigUint64(offset, true);
    },
    store_u8: (address, value) => {
      const { block, offset } = accessed(address, 1, 'store_u8');
      block.bytes[offset] = value;
    },
    store_u64: (address, value) => {
      const { block, offset } = accessed(address, 8, 'store_u64');
      block.view.setBigUint64(offset, value, true);
    },
    input_offset: () => addressOf(inputIndex),
    input_length: () => BigInt(inputBlock.bytes.byteLength),
    input_load_u8: (address) => inputBlock.bytes[inputAt(address, 1)],
    input_load_u64: (address) => inputBlock.view.getBigUint64(inputAt(address, 8), true),
    output_set: (address, length) => {
      const block = blockAt(address);
      if (!block || Number(length) > block.bytes.byteLength || length < 0n) {
        throw new KernelLimit('output_set names no block of that length');
      }
      output = { index: indexOf(address), length: Number(length) };
    },
    error_set: (address) => {
      if (!blockAt(address)) throw new KernelLimit('error_set names no block');
      errorIndex = indexOf(address);
    },
    error_get: () => (errorIndex === 0 ? 0n : addressOf(errorIndex)),
    // The platform hands its configuration in the envelope: the kernel's own config is empty.
    config_get: (address) => {
      release(indexOf(address));
      return 0n;
    },
    var_get: (address) => {
      const keyBlock = blockAt(address);
      if (!keyBlock) return 0n;
      const value = variables.get(decoder.decode(keyBlock.bytes));
      release(indexOf(address));
      return value ? store(value.bytes) : 0n;
    },
    var_set: setVariable,
    // The kernel's own HTTP is not offered: the platform's http_request is the way out.
    http_request: () => 0n,
    http_status_code: () => 0,
    http_headers: () => 0n,
    log_warn: discardLog,
    log_info: discardLog,
    log_debug: discardLog,
    log_error: discardLog,
    log_trace: discardLog,
    get_log_level: () => LOG_LEVEL_OFF,
  });

  return {
    imports,
    /** Binds the call's input. */
    begin(input) {
      inputIndex = allocate(input.byteLength);
      if (inputIndex === 0) throw new KernelLimit('the call input does not fit in the memory limit');
      inputBlock = blocks[inputIndex];
      inputBlock.bytes.set(input);
    },
    /** The bytes of a block the module names, or null; only when at most maxBytes long (else 'large'). */
    read(address, maxBytes) {
      const block = blockAt(address);
      if (!block) return null;
      if (block.bytes.byteLength > maxBytes) return 'large';
      return block.bytes;
    },
    store,
    /** Bytes its blocks and variables hold now, overheads included. */
    usedBytes: () => used,
    /** All its blocks and variables were ever charged: what the heap may hold of them, garbage included. */
    chargedBytes: () => charged,
    /**
     * Frees the memory of every block and variable now, once the call's outcome was read: a detached
     * buffer's memory goes back at once (ArrayBuffer.prototype.transfer(0)), so a call's 250 MiB block
     * needs no collection, and none on V8's helper threads that every tenant shares. Answers what the
     * blocks freed earlier were charged: those wait for a collection.
     */
    dispose() {
      let kept = 0;
      for (const block of blocks) {
        if (!block) continue;
        kept += cost(block.bytes.byteLength);
        block.bytes.buffer.transfer(0);
      }
      for (const variable of variables.values()) {
        kept += variable.cost;
        variable.bytes.buffer.transfer(0);
      }
      blocks.length = 1;
      variables.clear();
      return charged - kept;
    },
    /**
     * What the export ended with: its error text (the first ERROR_TEXT_BYTES of its block), or its output
     * bytes (a copy), or, for an output past MAX_OUTPUT_BYTES, only its size (nothing is copied), or none.
     */
    outcome() {
      const error = blocks[errorIndex];
      if (errorIndex !== 0 && error) {
        const prefix = error.bytes.subarray(0, ERROR_TEXT_BYTES);
        // stream: a character cut at the end is dropped, not made a U+FFFD.
        return {
          error: new TextDecoder().decode(prefix, { stream: prefix.byteLength < error.bytes.byteLength }),
        };
      }
      const block = output ? blocks[output.index] : undefined;
      if (!block) return { output: new Uint8Array() };
      if (output.length > MAX_OUTPUT_BYTES) return { outputTooLarge: output.length };
      return { output: block.bytes.slice(0, output.length) };
    },
  };
}
