// Real commands run as child processes the way a user runs them: `platform` with embedded PostgreSQL
// under a temporary DATA_DIR, free ports, a clean environment, and the exact lines they print. Every
// directory and child made here is recorded; a test file cleans up by calling cleanUpProcesses() from
// its afterEach and removeTempDirs() from its afterAll (PostgreSQL left running is stopped too).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, inject } from 'vitest';
import type { Env } from './child-env.ts';
import { copyDataDirTemplate } from './data-dir-template.ts';
import { pgCtl } from './pg-ctl.ts';
import { timed } from './profile.ts';

export { pgCtl };
export { baseEnv, type Env, freePorts, type Ports } from './child-env.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The `platform` command (`npx platform`). */
export const BIN = path.join(ROOT, 'bin', 'platform.js');
/** The `app` command (`npx app`). */
export const APP_BIN = path.join(ROOT, 'bin', 'app.js');
/** The `ops` command (`npx ops`). */
export const OPS_BIN = path.join(ROOT, 'bin', 'ops.js');

export interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  stdout: string;
  stderr: () => string;
  /** From spawn to the printed API address. */
  startMs: number;
  exited: Promise<Result>;
}

// ---------------------------------------------------------------------------------------------------
// Housekeeping.

/** Children started in their own process group; cleanUpProcesses() kills what is left of each group. */
export const children = new Set<ChildProcess>();
/** DATA_DIRs whose embedded PostgreSQL cleanUpProcesses() stops if it is still running. */
export const dataDirs = new Set<string>();
/** Directories removeTempDirs() deletes. */
export const tempDirs = new Set<string>();

/** A temporary directory PostgreSQL (running as its own user when we are root) can traverse. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  await fs.chmod(dir, 0o755);
  tempDirs.add(dir);
  return dir;
}

export async function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * The live processes (`ps` lines: pid, state, command) of the process group a detached child led, once
 * the group has drained or 10 s have passed. Helpers that end with their parent (tsx's esbuild service
 * exits when its pipe closes) may outlive it by a moment; zombies are dead, waiting for init to reap them.
 */
export async function groupLeftovers(leader: ChildProcess): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const live = groupMembers(leader).filter((line) => !/^\d+ Z/.test(line));
    if (live.length === 0 || Date.now() > deadline) return live;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function groupMembers(leader: ChildProcess): string[] {
  const lines = execFileSync('ps', ['-eo', 'pgid=,pid=,stat=,args='], { encoding: 'utf8' }).split('\n');
  return lines
    .map((line) => line.trim().split(/\s+/))
    .filter(([pgid]) => Number(pgid) === leader.pid)
    .map((fields) => fields.slice(1).join(' '));
}

/** No PostgreSQL left for this DATA_DIR: pg_ctl says so (exit 3), no pid file, and its port is closed. */
export async function expectNoPostgres(dataDir: string, port: number): Promise<void> {
  if (existsSync(path.join(dataDir, 'postgres'))) {
    expect(await pgCtl(dataDir, ['status'])).toBe(3);
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  }
  expect(await portOpen(port)).toBe(false);
}

/**
 * For afterEach: kills what is left of every child's process group (a leader that exited may have left
 * a member behind), then stops any PostgreSQL left behind.
 */
export async function cleanUpProcesses(): Promise<void> {
  for (const child of children) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {}
  }
  children.clear();
  for (const dir of dataDirs) {
    if (existsSync(path.join(dir, 'postgres', 'postmaster.pid')))
      await pgCtl(dir, ['stop', '-m', 'immediate', '-w']);
  }
}

/**
 * A DATA_DIR under a new temporary directory, as a first `platform start` left it once stopped (the
 * run's template, test/support/data-dir-template.ts): for a file whose test is not about a first start.
 * Recorded for cleanUpProcesses() like any DATA_DIR the file starts PostgreSQL in.
 */
export async function startedDataDir(prefix: string): Promise<string> {
  const dataDir = path.join(await tempDir(prefix), 'data');
  await timed('database', () => copyDataDirTemplate(inject('dataDirTemplate'), dataDir));
  dataDirs.add(dataDir);
  return dataDir;
}

/** For afterAll: deletes every directory tempDir() made. */
export async function removeTempDirs(): Promise<void> {
  for (const dir of tempDirs) await fs.rm(dir, { recursive: true, force: true });
  tempDirs.clear();
}

// ---------------------------------------------------------------------------------------------------
// Running the command.

export function collect(child: ChildProcess): {
  exited: Promise<Result>;
  out: () => string;
  err: () => string;
} {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<Result>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { exited, out: () => stdout, err: () => stderr };
}

/** Runs `platform <args>` (or a shell line) to its end. */
export async function run(
  args: string[],
  env: Env,
  options: { cwd?: string; shell?: string; bin?: string } = {},
): Promise<Result> {
  const child = options.shell
    ? spawn('/bin/sh', ['-c', options.shell], { cwd: options.cwd ?? ROOT, env, detached: true })
    : spawn(process.execPath, [options.bin ?? BIN, ...args], {
        cwd: options.cwd ?? ROOT,
        env,
        detached: true,
      });
  children.add(child);
  child.stdin?.end();
  return collect(child).exited;
}

/** How long `platform start` may take to print its block (initdb included) on a loaded machine. */
const START_LIMIT_MS = 120_000;

/**
 * Starts `platform start` in its own process group (as a terminal would run it, so a group SIGINT is
 * a Ctrl-C) and waits for the block it prints once running.
 */
export function startPlatform(args: string[], env: Env, cwd = ROOT): Promise<Running> {
  return startCommand([process.execPath, BIN, 'start', ...args], env, cwd);
}

/** Starts a command that runs the platform (`npm start`, say) the same way, and waits for its block. */
export function startCommand(command: string[], env: Env, cwd = ROOT): Promise<Running> {
  return timed('starting', () => startAndWaitForBlock(command, env, cwd, true));
}

/**
 * `platform start` outside the housekeeping: neither cleanUpProcesses() nor another file's afterEach
 * kills it. For a platform that outlives the file that started it (test/support/console.ts's shared
 * stack); whoever starts one stops it.
 */
export function startUntrackedPlatform(args: string[], env: Env): Promise<Running> {
  return timed('starting', () =>
    startAndWaitForBlock([process.execPath, BIN, 'start', ...args], env, ROOT, false),
  );
}

async function startAndWaitForBlock(
  command: string[],
  env: Env,
  cwd: string,
  tracked: boolean,
): Promise<Running> {
  const spawnedAt = performance.now();
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, args, { cwd, env, detached: true });
  let addressAt = 0;
  // Not anchored at the end: with LOG_LEVEL info a log line may follow the block in the same chunk.
  const { exited, out, err } = await waitForOutput(child, /Get a token: [^\n]*\n\n/, {
    what: 'platform',
    limitMs: START_LIMIT_MS,
    tracked,
    seen: (printed) => {
      if (!addressAt && /\n {2}API {8}http/.test(printed)) addressAt = performance.now();
    },
  });
  return { child, stdout: out(), stderr: err, startMs: Math.round(addressAt - spawnedAt), exited };
}

/**
 * Waits until a child spawned in its own process group prints `ready` on stdout; fails with what it
 * printed when it exits first or says nothing of the kind within `limitMs` (not with the test's bare
 * timeout). `seen` is told the output so far at each chunk.
 */
async function waitForOutput(
  child: ChildProcess,
  ready: RegExp,
  options: { what: string; limitMs: number; tracked?: boolean; seen?: (printed: string) => void },
): Promise<ReturnType<typeof collect>> {
  if (options.tracked !== false) children.add(child);
  child.stdin?.end();
  const collected = collect(child);
  const { exited, out, err } = collected;
  await new Promise<void>((resolve, reject) => {
    const onData = () => {
      options.seen?.(out());
      if (ready.test(out())) {
        child.stdout?.off('data', onData);
        clearTimeout(limit);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    void exited.then((result) =>
      reject(new Error(`${options.what} exited (${result.code}) before it was ready:\n${result.stderr}`)),
    );
    const limit = setTimeout(
      () => reject(new Error(`${options.what} not ready after ${options.limitMs} ms:\n${out()}\n${err()}`)),
      options.limitMs,
    ).unref();
  });
  return collected;
}

/** The process group's Ctrl-C, or a supervisor's SIGTERM to the process alone. */
export function signal(
  running: Running | ChildProcess,
  name: 'SIGINT' | 'SIGTERM',
  group = name === 'SIGINT',
): void {
  const child = 'child' in running ? running.child : running;
  process.kill(group ? -(child.pid as number) : (child.pid as number), name);
}

/** The platform's last 40 lines on stderr, without the engine's queue-poll warnings that repeat while the database is away. */
export function platformOutput(running: Running): string {
  const lines = running.stderr().split('\n');
  return lines
    .filter((line) => !line.includes('startable workflows'))
    .slice(-40)
    .join('\n');
}

/**
 * fetch() from a platform this test started. A refused connection means the platform stopped listening:
 * the error says whether its process still runs and what it printed, so that a failure names its cause.
 */
export async function fetchFrom(running: Running, url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const { exitCode, signalCode } = running.child;
    const state =
      exitCode === null && signalCode === null ? 'still running' : `exited (${signalCode ?? exitCode})`;
    throw new Error(
      `${init?.method ?? 'GET'} ${url} failed (${String((error as Error).cause ?? error)}); the platform ${state}; it printed:\n${platformOutput(running)}`,
    );
  }
}

export interface VendorProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<Result>;
}

/**
 * `app vendor-double --port <port> [args…]` in its own process group, once it printed its "listening"
 * line (`--idv --webhook-secret <s>` plays the identity-verification vendor).
 */
export function startVendorDoubleCommand(
  port: number,
  env: Env,
  args: readonly string[] = [],
): Promise<VendorProcess> {
  return startServingCommand(
    APP_BIN,
    ['vendor-double', '--port', String(port), ...args],
    env,
    'vendor double',
  );
}

/**
 * A command that serves until stopped (`bin` and its arguments), in its own process group, once it printed
 * a line saying it is listening.
 */
export function startServingCommand(
  bin: string,
  args: readonly string[],
  env: Env,
  what: string,
): Promise<VendorProcess> {
  return timed('starting', () => startAndWaitForListening(bin, args, env, what));
}

async function startAndWaitForListening(
  bin: string,
  args: readonly string[],
  env: Env,
  what: string,
): Promise<VendorProcess> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: ROOT, env, detached: true });
  const { exited, out, err } = await waitForOutput(child, /listening on .*\n/, { what, limitMs: 30_000 });
  return { child, stdout: out, stderr: err, exited };
}
