// The runner of `platform start --role all` as a child process (`platform runner-child`,
// src/cli/runner-process.ts): the api and the worker reach it over HTTP with the runner token, as they
// reach a runner deployed on its own, so nothing a module does to the runner's process can stall them.
// The child shares the parent's process group (Ctrl-C reaches both; the child leaves its stop to the
// parent), its stdout and stderr (its log lines are the platform's), and an IPC channel (its address, its
// metric recordings; the child exits when the channel closes, as it does when the parent is killed).
// A child that dies is restarted after a back-off, at most RESTARTS_PER_MINUTE times a minute: a module
// must not be able to take the platform down. Calls in flight meanwhile fail as a call to an unreachable
// runner fails (src/runner/client.ts).
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { recordForwarded } from '../telemetry/index.ts';
import type { RunnerChildMessage } from './runner-process.ts';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/platform.js');

/** Restarts within a minute beyond which the next waits until the oldest is a minute old. */
export const RESTARTS_PER_MINUTE = 10;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8_000;
/** How long the first start may take to answer GET /health/ready (tsx compiles the runner's sources). */
const READY_LIMIT_MS = 60_000;
/** How long a stop waits for the child to exit before killing it (it bounds its own stop at 10 s). */
const STOP_LIMIT_MS = 15_000;

export interface RunnerChild {
  /** The runner's base URL once its first process answers GET /health/ready; rejects if it never does. */
  ready: Promise<string>;
  /** The runner process's pid now; null between a death and its restart. */
  pid(): number | null;
  /** Stops the child (SIGTERM: it finishes its calls in flight) and restarts it no more. */
  close(): Promise<void>;
}

export function startRunnerChild(config: Config, logger: Logger): RunnerChild {
  if (!config.appRunnerToken) throw new Error('APP_RUNNER_TOKEN is required by the runner');
  const log = logger.child({ part: 'runner process' });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    APP_RUNNER_TOKEN: config.appRunnerToken,
    RUNNER_PORT: String(config.runnerPort),
  };
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let url: string | null = null;
  let stopping = false;
  let restartTimer: NodeJS.Timeout | null = null;
  const restarts: number[] = [];
  let settle: { resolve(url: string): void; reject(error: Error): void } | null = null;
  const ready = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  ready.catch(() => {}); // awaited by start(); not unhandled meanwhile

  const spawnOne = () => {
    let failure: Extract<RunnerChildMessage, { kind: 'failed' }> | null = null;
    const started = fork(BIN, ['runner-child'], {
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // An inspector port of the parent's would be taken twice.
      execArgv: process.execArgv.filter((arg) => !arg.startsWith('--inspect')),
    });
    child = started;
    started.on('message', (message: RunnerChildMessage) => {
      if (message.kind === 'metric') recordForwarded(message.recording);
      else if (message.kind === 'failed') failure = message;
      else if (message.kind === 'listening') void listening(started, message.url);
    });
    exited = new Promise((resolve) => {
      started.once('exit', (code, signal) => {
        if (child === started) child = null;
        resolve();
        if (stopping) return;
        if (url === null) {
          settle?.reject(startFailure(failure, code, signal));
          return;
        }
        scheduleRestart(started.pid, code, signal);
      });
    });
    started.once('error', (err) => log.error({ err }, 'runner process error'));
  };

  const listening = async (from: ChildProcess, given: string) => {
    if (url !== null) {
      log.warn({ runnerPid: from.pid, url }, 'runner process restarted');
      return;
    }
    try {
      await answersReady(given, () => child !== from);
      // RUNNER_PORT 0 picked a port: a restart listens on the same one, where the api and worker call.
      env.RUNNER_PORT = new URL(given).port;
      url = given;
      settle?.resolve(given);
    } catch (error) {
      from.kill('SIGKILL');
      settle?.reject(error as Error);
    }
  };

  const scheduleRestart = (pid: number | undefined, code: number | null, signal: string | null) => {
    const now = Date.now();
    while (restarts.length > 0 && now - (restarts[0] as number) >= 60_000) restarts.shift();
    const delayMs =
      restarts.length >= RESTARTS_PER_MINUTE
        ? 60_000 - (now - (restarts[0] as number))
        : Math.min(FIRST_BACKOFF_MS * 2 ** restarts.length, MAX_BACKOFF_MS);
    log.error({ runnerPid: pid, code, signal, restartInMs: delayMs }, 'runner process exited; restarting it');
    restartTimer = setTimeout(() => {
      restartTimer = null;
      if (stopping) return;
      restarts.push(Date.now());
      spawnOne();
    }, delayMs);
  };

  spawnOne();
  return {
    ready,
    pid: () => child?.pid ?? null,
    async close() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      settle?.reject(new Error('stopped before the runner process was ready'));
      const running = child;
      if (!running) return;
      running.kill('SIGTERM');
      const limit = setTimeout(() => running.kill('SIGKILL'), STOP_LIMIT_MS);
      await exited;
      clearTimeout(limit);
    },
  };
}

/** Polls GET /health/ready until it answers 200; gives up when `gone()` says the process is no more. */
async function answersReady(url: string, gone: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_LIMIT_MS;
  for (;;) {
    if (gone()) throw new Error('the runner process exited before it was ready');
    try {
      const response = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2_000) });
      await response.body?.cancel();
      if (response.ok) return;
    } catch {}
    if (Date.now() > deadline) throw new Error(`the runner at ${url} was not ready in ${READY_LIMIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The first start's failure as start() reports it: EADDRINUSE keeps its code and port (portInUse()). */
function startFailure(
  failure: Extract<RunnerChildMessage, { kind: 'failed' }> | null,
  code: number | null,
  signal: string | null,
): Error {
  if (!failure) return new Error(`the runner process exited (${signal ?? code}) before it listened`);
  return Object.assign(new Error(failure.message), { code: failure.code, port: failure.port });
}
