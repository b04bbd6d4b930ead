// WASI preview 1 for one sandbox instance, with no descriptor of the process behind it. Node's own WASI
// acts on real descriptors (closing fd 1 closed the process's /dev/null, and fd 2 then named whatever
// socket the process accepted next) and sleeps natively in poll_oneoff (a sleep no thread termination
// interrupts). Here every descriptor is a name in this file: 0 reads as empty, 1 and 2 take writes and
// discard them, none can be closed or renumbered, and no other exists (no preopened directory, no file,
// no socket). Clocks and random bytes are served; arguments and environment are empty; proc_exit ends
// the call with a trap naming it; poll_oneoff waits on a private futex that thread termination
// interrupts. Every pointer the module passes is checked against its memory: EFAULT, never a host error.
//
// Plain JavaScript, loaded by the sandbox thread (thread-entry.js); pure but for the clock, the random
// source and the wait, which are handed in.

/** The error numbers this implementation answers (WASI preview 1 errno). */
export const ERRNO = {
  success: 0,
  badf: 8,
  fault: 21,
  inval: 28,
  notsup: 58,
  spipe: 70,
};

const FILETYPE_CHARACTER_DEVICE = 2;
const RIGHT_FD_READ = 1n << 1n;
const RIGHT_FD_WRITE = 1n << 6n;
const RIGHT_FD_FILESTAT_GET = 1n << 21n;
const RIGHT_POLL_FD_READWRITE = 1n << 27n;
const EVENTTYPE_CLOCK = 0;
const EVENTTYPE_FD_READ = 1;
const EVENTTYPE_FD_WRITE = 2;
const EVENT_FD_READWRITE_HANGUP = 1;
const SUBCLOCKFLAG_ABSTIME = 1;
const SUBSCRIPTION_BYTES = 48;
const EVENT_BYTES = 32;
/** The longest wait one poll_oneoff makes: no call lives longer (the thread is ended at its deadline). */
export const MAX_SLEEP_MS = 120_000;
/** Random bytes are drawn in pieces of this size (the most crypto.getRandomValues takes at once). */
const RANDOM_CHUNK = 65_536;

/** Thrown by proc_exit: the call ends as a trap whose message names the function and its code. */
export class ProcExit extends Error {
  constructor(code) {
    super(`the module called proc_exit(${code})`);
    this.name = 'ProcExit';
  }
}

/** Thrown where a pointer is outside the memory: answered as EFAULT by the function it happened in. */
class Fault extends Error {}

const STDIN = 0;
const isOutput = (fd) => fd === 1 || fd === 2;
const isStandard = (fd) => fd === STDIN || isOutput(fd);

/**
 * The wasi_snapshot_preview1 functions of one instance.
 * memory: () => the instance's exported memory (undefined before instantiation or when it exports none);
 * clock: { realtimeNs(), monotonicNs() } as BigInts; randomFill(Uint8Array); sleep(ms).
 */
export function createWasi({ memory, clock, randomFill, sleep }) {
  /** The memory as it is now (it may have grown, detaching earlier views), bounds checked by the view. */
  function view() {
    const current = memory();
    if (!current) throw new Fault('the module exports no memory');
    return new DataView(current.buffer);
  }
  function range(data, at, length) {
    if (at < 0 || length < 0 || at + length > data.byteLength) throw new Fault('outside memory');
    return new Uint8Array(data.buffer, at, length);
  }
  function setU32(data, at, value) {
    range(data, at, 4);
    data.setUint32(at, value, true);
  }
  function setU64(data, at, value) {
    range(data, at, 8);
    data.setBigUint64(at, value, true);
  }
  /** The total length of an iovec array, every buffer checked to lie inside memory. */
  function iovecsLength(data, iovs, count) {
    let total = 0;
    range(data, iovs, count * 8);
    for (let i = 0; i < count; i++) {
      const at = data.getUint32(iovs + i * 8, true);
      const length = data.getUint32(iovs + i * 8 + 4, true);
      range(data, at, length);
      total += length;
    }
    return total;
  }
  /** Runs one function; a pointer outside memory answers EFAULT. */
  const guarded =
    (fn) =>
    (...args) => {
      try {
        return fn(...args);
      } catch (error) {
        if (error instanceof Fault) return ERRNO.fault;
        throw error;
      }
    };
  const onStandard = (outcome) => (fd) => (isStandard(fd) ? outcome : ERRNO.badf);
  const notOnStandard = onStandard(ERRNO.notsup);
  const empty = guarded((countPtr, sizePtr) => {
    const data = view();
    setU32(data, countPtr, 0);
    setU32(data, sizePtr, 0);
    return ERRNO.success;
  });

  function nowNs(id) {
    if (id === 0) return clock.realtimeNs();
    // The process and thread CPU clocks are answered with the monotonic clock: a module learns no more.
    if (id >= 1 && id <= 3) return clock.monotonicNs();
    return null;
  }

  function pollOneoff(inPtr, outPtr, count, eventsPtr) {
    if (count === 0) return ERRNO.inval;
    const data = view();
    range(data, inPtr, count * SUBSCRIPTION_BYTES);
    range(data, outPtr, count * EVENT_BYTES);
    const ready = [];
    const clocks = [];
    for (let i = 0; i < count; i++) {
      const at = inPtr + i * SUBSCRIPTION_BYTES;
      const userdata = data.getBigUint64(at, true);
      const tag = data.getUint8(at + 8);
      if (tag === EVENTTYPE_CLOCK) {
        const id = data.getUint32(at + 16, true);
        const timeout = data.getBigUint64(at + 24, true);
        const flags = data.getUint16(at + 40, true);
        const now = nowNs(id);
        if (now === null) ready.push({ userdata, error: ERRNO.inval, type: EVENTTYPE_CLOCK });
        else {
          const waitNs = flags & SUBCLOCKFLAG_ABSTIME ? timeout - now : timeout;
          clocks.push({ userdata, waitNs: waitNs > 0n ? waitNs : 0n });
        }
      } else if (tag === EVENTTYPE_FD_READ || tag === EVENTTYPE_FD_WRITE) {
        const fd = data.getUint32(at + 16, true);
        const usable = tag === EVENTTYPE_FD_READ ? fd === STDIN : isOutput(fd);
        ready.push({ userdata, error: usable ? ERRNO.success : ERRNO.badf, type: tag, hangup: fd === STDIN });
      } else {
        ready.push({ userdata, error: ERRNO.inval, type: tag });
      }
    }
    if (ready.length === 0) {
      // Only clocks: wait for the earliest, then report every clock due by then.
      const shortest = clocks.reduce((min, c) => (c.waitNs < min ? c.waitNs : min), clocks[0].waitNs);
      const ms = Number(shortest / 1_000_000n);
      if (ms > 0) sleep(Math.min(ms, MAX_SLEEP_MS));
      for (const c of clocks) if (c.waitNs <= shortest) ready.push({ ...c, error: 0, type: EVENTTYPE_CLOCK });
    }
    ready.forEach((event, i) => {
      const at = outPtr + i * EVENT_BYTES;
      new Uint8Array(data.buffer, at, EVENT_BYTES).fill(0);
      data.setBigUint64(at, event.userdata, true);
      data.setUint16(at + 8, event.error, true);
      data.setUint8(at + 10, event.type);
      if (event.hangup) data.setUint16(at + 24, EVENT_FD_READWRITE_HANGUP, true);
    });
    setU32(data, eventsPtr, ready.length);
    return ERRNO.success;
  }

  return {
    args_get: () => ERRNO.success,
    args_sizes_get: empty,
    environ_get: () => ERRNO.success,
    environ_sizes_get: empty,
    clock_res_get: guarded((id, resPtr) => {
      if (nowNs(id) === null) return ERRNO.inval;
      setU64(view(), resPtr, 1000n);
      return ERRNO.success;
    }),
    clock_time_get: guarded((id, _precision, timePtr) => {
      const now = nowNs(id);
      if (now === null) return ERRNO.inval;
      setU64(view(), timePtr, now);
      return ERRNO.success;
    }),
    fd_advise: notOnStandard,
    fd_allocate: notOnStandard,
    fd_close: notOnStandard,
    fd_datasync: notOnStandard,
    fd_fdstat_get: guarded((fd, statPtr) => {
      if (!isStandard(fd)) return ERRNO.badf;
      const data = view();
      range(data, statPtr, 24).fill(0);
      data.setUint8(statPtr, FILETYPE_CHARACTER_DEVICE);
      const io = fd === STDIN ? RIGHT_FD_READ : RIGHT_FD_WRITE;
      data.setBigUint64(statPtr + 8, io | RIGHT_FD_FILESTAT_GET | RIGHT_POLL_FD_READWRITE, true);
      return ERRNO.success;
    }),
    fd_fdstat_set_flags: notOnStandard,
    fd_fdstat_set_rights: notOnStandard,
    fd_filestat_get: guarded((fd, statPtr) => {
      if (!isStandard(fd)) return ERRNO.badf;
      const data = view();
      range(data, statPtr, 64).fill(0);
      data.setUint8(statPtr + 16, FILETYPE_CHARACTER_DEVICE);
      return ERRNO.success;
    }),
    fd_filestat_set_size: notOnStandard,
    fd_filestat_set_times: notOnStandard,
    fd_pread: onStandard(ERRNO.spipe),
    fd_prestat_get: () => ERRNO.badf,
    fd_prestat_dir_name: () => ERRNO.badf,
    fd_pwrite: onStandard(ERRNO.spipe),
    fd_read: guarded((fd, iovs, count, readPtr) => {
      if (fd !== STDIN) return ERRNO.badf;
      const data = view();
      iovecsLength(data, iovs, count);
      setU32(data, readPtr, 0); // always at its end
      return ERRNO.success;
    }),
    fd_readdir: notOnStandard,
    fd_renumber: notOnStandard,
    fd_seek: onStandard(ERRNO.spipe),
    fd_sync: notOnStandard,
    fd_tell: onStandard(ERRNO.spipe),
    fd_write: guarded((fd, iovs, count, writtenPtr) => {
      if (!isOutput(fd)) return ERRNO.badf;
      const data = view();
      // Taken whole and discarded: what a module prints reaches no log unredacted.
      setU32(data, writtenPtr, iovecsLength(data, iovs, count));
      return ERRNO.success;
    }),
    poll_oneoff: guarded(pollOneoff),
    proc_exit: (code) => {
      throw new ProcExit(code);
    },
    proc_raise: () => ERRNO.notsup,
    random_get: guarded((at, length) => {
      const bytes = range(view(), at, length);
      for (let from = 0; from < length; from += RANDOM_CHUNK) {
        randomFill(bytes.subarray(from, Math.min(length, from + RANDOM_CHUNK)));
      }
      return ERRNO.success;
    }),
    sched_yield: () => ERRNO.success,
  };
}
