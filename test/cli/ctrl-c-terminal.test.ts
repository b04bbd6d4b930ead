// Ctrl-C as a person types it: `npm start` in a pseudo-terminal (util-linux `script`), a client holding a
// keep-alive connection to the api (as a browser on /docs does), then Ctrl-C typed into the terminal. The
// terminal signals the whole foreground group and npm forwards its own copy, so the platform receives
// SIGINT twice, milliseconds apart: one request, everything stops, exit 0, nothing left. And a start that
// finds PostgreSQL left running by a killed platform says so in one line.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  baseEnv,
  children,
  cleanUpProcesses,
  expectNoPostgres,
  freePorts,
  ROOT,
  removeTempDirs,
  signal,
  startedDataDir,
  startPlatform,
} from '../support/processes.ts';

const SLOW = 300_000;

/** Sessions the terminals made (script's child leads one): killed whole after each test. */
const sessions = new Set<number>();
afterEach(async () => {
  for (const sid of sessions) {
    for (const pid of sessionMembers(sid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  }
  sessions.clear();
  await cleanUpProcesses();
});
afterAll(removeTempDirs);

function processTable(): string[][] {
  return execFileSync('ps', ['-eo', 'sid=,pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((line) => line.trim().split(/\s+/));
}

function sessionMembers(sid: number): number[] {
  return processTable()
    .filter(([session]) => Number(session) === sid)
    .map(([, pid]) => Number(pid));
}

/** PostgreSQL servers (postmaster and backends) whose data directory is under dataDir. */
function postgresOf(dataDir: string): string[] {
  return processTable()
    .map((fields) => fields.slice(3).join(' '))
    .filter((args) => /\bpostgres\b/.test(args) && args.includes(path.join(dataDir, 'postgres')));
}

interface Terminal {
  child: ChildProcess;
  output: () => string;
  /** Resolves once the output matches. */
  printed(pattern: RegExp): Promise<void>;
  type(keys: string): void;
  exited: Promise<number | null>;
}

/** A command run in a pseudo-terminal of its own, as a terminal window runs it. */
function terminal(command: string, env: Record<string, string>): Terminal {
  // -q: no banner; -f: output as it comes; -e: script exits with the command's code; no log file.
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, env, detached: true });
  // Killed with its group after the test: the terminal closes, and its session gets SIGHUP.
  children.add(child);
  let output = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    for (const waiter of waiters.filter((w) => w.pattern.test(output))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    printed: (pattern) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(output)) return resolve();
        waiters.push({ pattern, resolve });
        void exited.then(() => reject(new Error(`the terminal closed before ${pattern}:\n${output}`)));
      }),
    type: (keys) => child.stdin?.write(keys),
    exited,
  };
}

/** The session the terminal's command leads (script runs it as its child, in a new session). */
async function sessionOf(script: ChildProcess): Promise<number> {
  const row = processTable().find(([, , ppid]) => Number(ppid) === script.pid);
  if (!row) throw new Error('the terminal runs no command');
  return Number(row[0]);
}

/** A client that asked the api for a page and keeps its connection open (HTTP/1.1 keep-alive). */
async function keepAliveClient(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  let answer = '';
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
      if (answer.includes('\r\n\r\n')) resolve();
    });
    socket.write('GET /docs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });
  expect(answer.toLowerCase()).not.toContain('connection: close');
  return socket;
}

describe('Ctrl-C in a terminal running npm start', () => {
  it(
    'stops everything with a client connected: exit 0, no PostgreSQL left, no lock',
    async () => {
      if (!existsSync('/usr/bin/script')) throw new Error('this test needs `script` (util-linux)');
      const dataDir = await startedDataDir('apps-platform-tty-');
      const ports = await freePorts();
      const env = baseEnv({ ...ports, DATA_DIR: dataDir, TERM: 'dumb' });
      // As a person's shell runs it: npm itself leads the terminal's job (no `sh -c` between, which would
      // die of the Ctrl-C itself and hide npm's exit code).
      const tty = terminal('exec npm start', env);
      await tty.printed(/Get a token: [^\n]*\n/);
      sessions.add(await sessionOf(tty.child));
      const postgresPort = Number(await fs.readFile(path.join(dataDir, 'postgres.port'), 'utf8'));
      expect(postgresOf(dataDir)).not.toEqual([]);

      const client = await keepAliveClient(Number(ports.PORT));
      const clientClosed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      tty.type('\x03');

      const code = await tty.exited;
      expect(code, tty.output()).toBe(0);
      await clientClosed; // the api ended the idle connection when it stopped
      expect(postgresOf(dataDir)).toEqual([]);
      expect(existsSync(path.join(dataDir, 'platform.lock'))).toBe(false);
      await expectNoPostgres(dataDir, postgresPort);
      // Every process of the terminal's session is gone.
      for (const sid of sessions) expect(sessionMembers(sid)).toEqual([]);
    },
    SLOW,
  );
});

describe('a start that finds PostgreSQL left running', () => {
  it(
    'says so in one line, takes it over, and stops it when it stops',
    async () => {
      const dataDir = await startedDataDir('apps-platform-leftover-');
      const ports = await freePorts();
      const env = baseEnv({ ...ports, DATA_DIR: dataDir });
      const killed = await startPlatform([], env);
      // Killed outright: PostgreSQL (in a session of its own) and the lock stay behind.
      process.kill(-(killed.child.pid as number), 'SIGKILL');
      await killed.exited;
      expect(postgresOf(dataDir)).not.toEqual([]);
      expect(existsSync(path.join(dataDir, 'platform.lock'))).toBe(true);

      const next = await startPlatform([], env);
      const said = next.stdout.split('\n').filter((line) => line.includes('still running'));
      expect(said).toHaveLength(1);
      expect(JSON.parse(said[0] as string)).toMatchObject({
        level: 'warn',
        dataDir,
        msg: 'PostgreSQL was still running in DATA_DIR, left by a platform that did not stop it; this one takes it over and stops it when it stops',
      });
      signal(next, 'SIGINT');
      expect((await next.exited).code).toBe(0);
      expect(postgresOf(dataDir)).toEqual([]);
      expect(existsSync(path.join(dataDir, 'platform.lock'))).toBe(false);
    },
    SLOW,
  );
});
