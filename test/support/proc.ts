// What Linux's /proc says about a test's processes: which process listens on a port, a process's parent,
// whether it still lives. Read as they are, never waited on here.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The pid of the process holding the listening TCP socket on `port` (IPv4 or IPv6), or null. */
export function listeningPid(port: number): number | null {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1] ?? '';
      // st 0A: LISTEN; the local port is the address's hexadecimal tail.
      if (fields[3] === '0A' && Number.parseInt(local.split(':').at(-1) ?? '', 16) === port) {
        inodes.add(fields[9] as string);
      }
    }
  }
  if (inodes.size === 0) return null;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (inodes.has(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? '')) return Number(pid);
      } catch {}
    }
  }
  return null;
}

/** The fields of /proc/<pid>/stat after the command's closing parenthesis (state, ppid, …), or null. */
function stat(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

export function parentPid(pid: number): number | null {
  const fields = stat(pid);
  return fields ? Number(fields[1]) : null;
}

/** Whether `pid` runs: a zombie (exited, not yet reaped by whoever adopted it) does not. */
export function alive(pid: number): boolean {
  const state = stat(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
}
