// The sandbox's WASI preview 1 called directly, over a real memory: every descriptor is a name of its
// own (0 empty, 1 and 2 discarding, none closable, no other), pointers outside memory are EFAULT, clocks
// and random bytes are served, poll_oneoff waits only through the wait it is given, proc_exit traps.
import { describe, expect, it } from 'vitest';
import { createWasi, ERRNO, MAX_SLEEP_MS, ProcExit } from '../../src/runner/threads/wasi.js';

const PAGE = 65_536;
interface Memory {
  buffer: ArrayBuffer;
}
const WasmMemory = (
  globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number }) => Memory } }
).WebAssembly.Memory;

function setUp() {
  const memory = new WasmMemory({ initial: 1 });
  const slept: number[] = [];
  let now = 5_000_000_000n;
  const wasi = createWasi({
    memory: () => memory,
    clock: { realtimeNs: () => 1_700_000_000_000_000_000n, monotonicNs: () => now },
    randomFill: (bytes) => bytes.fill(0xab),
    sleep: (ms) => {
      slept.push(ms);
      now += BigInt(ms) * 1_000_000n;
    },
  });
  const view = () => new DataView(memory.buffer);
  // biome-ignore lint/suspicious/noExplicitAny: the WASI functions take the numbers a module passes
  const call = (name: string, ...args: (number | bigint)[]) => (wasi[name] as any)(...args) as number;
  return { wasi, view, call, slept, memory };
}

describe('descriptors', () => {
  it.each([
    ['fd_close', [1], ERRNO.notsup],
    ['fd_close', [2], ERRNO.notsup],
    ['fd_close', [0], ERRNO.notsup],
    ['fd_close', [3], ERRNO.badf],
    ['fd_renumber', [1, 2], ERRNO.notsup],
    ['fd_renumber', [5, 2], ERRNO.badf],
    ['fd_seek', [1, 0, 0, 0], ERRNO.spipe],
    ['fd_tell', [2, 0], ERRNO.spipe],
    ['fd_prestat_get', [3, 0], ERRNO.badf],
    ['fd_prestat_dir_name', [3, 0, 0], ERRNO.badf],
    ['fd_fdstat_set_flags', [1, 0], ERRNO.notsup],
    ['fd_sync', [2], ERRNO.notsup],
    ['fd_readdir', [3, 0, 0, 0, 0], ERRNO.badf],
    ['fd_pwrite', [1, 0, 0, 0, 0], ERRNO.spipe],
    ['fd_write', [0, 0, 0, 0], ERRNO.badf],
    ['fd_write', [3, 0, 0, 0], ERRNO.badf],
    ['fd_write', [1023, 0, 0, 0], ERRNO.badf],
    ['fd_read', [1, 0, 0, 0], ERRNO.badf],
    ['fd_read', [2, 0, 0, 0], ERRNO.badf],
    ['fd_filestat_get', [3, 0], ERRNO.badf],
    ['fd_fdstat_get', [64, 0], ERRNO.badf],
    ['proc_raise', [9], ERRNO.notsup],
  ] as const)('%s%j answers %i', (name, args, errno) => {
    expect(setUp().call(name, ...args)).toBe(errno);
  });

  it('fd 1 and 2 stay character devices after every attempt to close or renumber them', () => {
    const { call, view } = setUp();
    for (const fd of [1, 2]) {
      call('fd_close', fd);
      call('fd_renumber', fd, 3);
      expect(call('fd_filestat_get', fd, 0x100)).toBe(ERRNO.success);
      expect(view().getUint8(0x100 + 16)).toBe(2);
      expect(call('fd_fdstat_get', fd, 0x200)).toBe(ERRNO.success);
      expect(view().getUint8(0x200)).toBe(2);
      expect(view().getBigUint64(0x208, true) & (1n << 6n)).toBe(1n << 6n); // may write
    }
  });

  it('fd_write takes every byte of 1 and 2 and keeps none; fd_read of 0 is always at its end', () => {
    const { call, view } = setUp();
    view().setUint32(0x10, 0x400, true);
    view().setUint32(0x14, 300, true);
    view().setUint32(0x18, 0x800, true);
    view().setUint32(0x1c, 12, true);
    expect(call('fd_write', 2, 0x10, 2, 0x40)).toBe(ERRNO.success);
    expect(view().getUint32(0x40, true)).toBe(312);
    view().setUint32(0x44, 99, true);
    expect(call('fd_read', 0, 0x10, 2, 0x44)).toBe(ERRNO.success);
    expect(view().getUint32(0x44, true)).toBe(0);
  });
});

describe('pointers', () => {
  it.each([
    ['an iovec array past the end', ['fd_write', 1, PAGE - 4, 1, 0]],
    ['an iovec naming bytes past the end', ['fd_write', 1, 0x10, 1, 0x40], [0x10, PAGE - 2, 10]],
    ['a negative pointer (an address of 2 GiB or more)', ['fd_write', 1, -8, 1, 0]],
    ['a written count past the end', ['fd_write', 1, 0x10, 0, PAGE - 2]],
    ['a stat past the end', ['fd_filestat_get', 1, PAGE - 8]],
    ['a clock value past the end', ['clock_time_get', 1, 0, PAGE - 4]],
    ['random bytes past the end', ['random_get', PAGE - 10, 20]],
    ['subscriptions past the end', ['poll_oneoff', PAGE - 40, 0, 1, 0]],
    ['an argument count past the end', ['args_sizes_get', PAGE, 0]],
  ] as const)('%s: EFAULT, and nothing written', (_what, [name, ...args], iovec?: readonly number[]) => {
    const { call, view, memory } = setUp();
    if (iovec) {
      view().setUint32(iovec[0] as number, iovec[1] as number, true);
      view().setUint32((iovec[0] as number) + 4, iovec[2] as number, true);
    }
    const before = new Uint8Array(memory.buffer).slice();
    expect(call(name, ...args)).toBe(ERRNO.fault);
    expect(new Uint8Array(memory.buffer)).toEqual(before);
  });

  it('a module that exports no memory gets EFAULT, not a host error', () => {
    const wasi = createWasi({
      memory: () => undefined,
      clock: { realtimeNs: () => 0n, monotonicNs: () => 0n },
      randomFill: () => {},
      sleep: () => {},
    });
    expect((wasi.fd_write as (...a: number[]) => number)(1, 0, 0, 0)).toBe(ERRNO.fault);
  });
});

describe('clocks, random, arguments, exit', () => {
  it('serves the real-time and monotonic clocks, and the CPU clocks as monotonic; other ids are EINVAL', () => {
    const { call, view } = setUp();
    expect(call('clock_time_get', 0, 0n, 0x100)).toBe(ERRNO.success);
    expect(view().getBigUint64(0x100, true)).toBe(1_700_000_000_000_000_000n);
    for (const id of [1, 2, 3]) {
      expect(call('clock_time_get', id, 0n, 0x100)).toBe(ERRNO.success);
      expect(view().getBigUint64(0x100, true)).toBe(5_000_000_000n);
    }
    expect(call('clock_time_get', 4, 0n, 0x100)).toBe(ERRNO.inval);
    expect(call('clock_res_get', 1, 0x108)).toBe(ERRNO.success);
    expect(view().getBigUint64(0x108, true)).toBe(1000n);
  });

  it('fills random bytes of any length, in pieces', () => {
    const { call, memory } = setUp();
    expect(call('random_get', 0x10, 40_000)).toBe(ERRNO.success);
    const bytes = new Uint8Array(memory.buffer);
    expect(bytes[0x0f]).toBe(0);
    expect(bytes.subarray(0x10, 0x10 + 40_000).every((b) => b === 0xab)).toBe(true);
    expect(bytes[0x10 + 40_000]).toBe(0);
  });

  it('has no arguments and no environment', () => {
    const { call, view } = setUp();
    view().setUint32(0x100, 7, true);
    view().setUint32(0x104, 7, true);
    expect(call('environ_sizes_get', 0x100, 0x104)).toBe(ERRNO.success);
    expect([view().getUint32(0x100, true), view().getUint32(0x104, true)]).toEqual([0, 0]);
  });

  it('proc_exit throws a trap naming it and its code', () => {
    const { call } = setUp();
    expect(() => call('proc_exit', 3)).toThrow(new ProcExit(3));
    expect(() => call('proc_exit', 3)).toThrow('the module called proc_exit(3)');
  });
});

describe('poll_oneoff', () => {
  /** Writes subscriptions at 0x1000: clocks { timeoutNs, abs? } or fds { read|write, fd }. */
  function subscribe(
    view: DataView,
    subs: ({ clock: bigint; abs?: boolean; id?: number } | { read: number } | { write: number })[],
  ) {
    subs.forEach((sub, i) => {
      const at = 0x1000 + i * 48;
      view.setBigUint64(at, BigInt(100 + i), true);
      if ('clock' in sub) {
        view.setUint8(at + 8, 0);
        view.setUint32(at + 16, sub.id ?? 1, true);
        view.setBigUint64(at + 24, sub.clock, true);
        view.setUint16(at + 40, sub.abs ? 1 : 0, true);
      } else {
        view.setUint8(at + 8, 'read' in sub ? 1 : 2);
        view.setUint32(at + 16, 'read' in sub ? sub.read : sub.write, true);
      }
    });
    return subs.length;
  }
  const events = (view: DataView, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      userdata: view.getBigUint64(0x2000 + i * 32, true),
      error: view.getUint16(0x2000 + i * 32 + 8, true),
      type: view.getUint8(0x2000 + i * 32 + 10),
    }));

  it('waits for the earliest clock through the wait it is given, and reports the clocks due then', () => {
    const { call, view, slept } = setUp();
    const n = subscribe(view(), [{ clock: 3_000_000_000n }, { clock: 1_000_000_000n }]);
    expect(call('poll_oneoff', 0x1000, 0x2000, n, 0x3000)).toBe(ERRNO.success);
    expect(slept).toEqual([1000]);
    expect(view().getUint32(0x3000, true)).toBe(1);
    expect(events(view(), 1)).toEqual([{ userdata: 101n, error: 0, type: 0 }]);
  });

  it('never waits longer than the longest deadline, however long it is asked', () => {
    const { call, view, slept } = setUp();
    subscribe(view(), [{ clock: 10n ** 19n }]);
    call('poll_oneoff', 0x1000, 0x2000, 1, 0x3000);
    expect(slept).toEqual([MAX_SLEEP_MS]);
  });

  it('an absolute clock already past does not wait', () => {
    const { call, view, slept } = setUp();
    subscribe(view(), [{ clock: 1n, abs: true }]);
    call('poll_oneoff', 0x1000, 0x2000, 1, 0x3000);
    expect(slept).toEqual([]);
    expect(events(view(), 1)).toEqual([{ userdata: 100n, error: 0, type: 0 }]);
  });

  it('descriptors are ready at once (0 at its end, 1 writable, others EBADF), without waiting on clocks', () => {
    const { call, view, slept } = setUp();
    const n = subscribe(view(), [{ clock: 5_000_000_000n }, { read: 0 }, { write: 1 }, { read: 7 }]);
    expect(call('poll_oneoff', 0x1000, 0x2000, n, 0x3000)).toBe(ERRNO.success);
    expect(slept).toEqual([]);
    expect(view().getUint32(0x3000, true)).toBe(3);
    expect(events(view(), 3)).toEqual([
      { userdata: 101n, error: 0, type: 1 },
      { userdata: 102n, error: 0, type: 2 },
      { userdata: 103n, error: ERRNO.badf, type: 1 },
    ]);
  });

  it('no subscription is EINVAL', () => {
    expect(setUp().call('poll_oneoff', 0x1000, 0x2000, 0, 0x3000)).toBe(ERRNO.inval);
  });
});
