// `platform runner-child` (hidden): the runner of `platform start --role all` in a process of its own, so
// that a module which stalls this process's main thread stalls neither the api nor the worker. Started and
// restarted by src/cli/runner-child.ts over an IPC channel, never by hand. It opens no database (the runner
// needs none: modules come from the api's internal listener), so the embedded PostgreSQL and its data-dir
// lock stay with the parent. Settings come from the parent's environment, with APP_RUNNER_TOKEN and
// RUNNER_PORT set by the parent.
import type { Logger } from 'pino';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logging.ts';
import { startRunnerFromConfig } from '../runner/index.ts';
import {
  type ForwardedRecording,
  forwardMetrics,
  startTelemetry,
  type Telemetry,
} from '../telemetry/index.ts';

/** What the child tells its parent over the IPC channel. */
export type RunnerChildMessage =
  | { kind: 'listening'; url: string }
  | { kind: 'failed'; message: string; code?: string; port?: number }
  | { kind: 'metric'; recording: ForwardedRecording };

/** The logger's service name: the lines read as the runner role of `--role all`, as they did in one process. */
export const RUNNER_CHILD_SERVICE = 'apps-platform-all';

/** How long a stop may wait for the runner's calls in flight before the process exits anyway. */
const STOP_LIMIT_MS = 10_000;

export async function runRunnerChild(): Promise<void> {
  if (!process.send) throw new Error('runner-child is started by `platform start --role all`');
  const send = (message: RunnerChildMessage) => {
    if (process.connected) process.send?.(message);
  };
  const config = loadConfig();
  const logger = createLogger({
    service: RUNNER_CHILD_SERVICE,
    level: config.logLevel,
    env: config.nodeEnv,
  }).child({ role: 'runner' });
  let runner: { close(): Promise<void> } | null = null;
  let telemetry: Telemetry | null = null;
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${why}, stopping`);
    // Exits even if a call in flight never ends; unref'd timers would let a stuck close keep us alive.
    setTimeout(() => process.exit(0), STOP_LIMIT_MS);
    void (async () => {
      await runner?.close().catch((err: unknown) => logger.error({ err }, 'runner stop failed'));
      await telemetry?.shutdown();
      process.exit(0);
    })();
  };
  // Ctrl-C reaches the whole process group: the parent stops this process (SIGTERM) once the api and the
  // worker, whose calls in flight it still answers, have stopped.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => stop('received SIGTERM'));
  // The channel closes when the parent exits in any way, SIGKILL included: nothing is left to serve.
  process.on('disconnect', () => stop('the platform process is gone'));

  try {
    telemetry = await startTelemetry(
      { ...config.telemetry, metricsPort: null },
      { serviceName: 'apps-platform-runner', metrics: false, database: false },
    );
    if (telemetry) forwardMetrics((recording) => send({ kind: 'metric', recording }));
    const started = await startRunnerFromConfig(config, logger);
    runner = started;
    send({ kind: 'listening', url: started.url });
  } catch (error) {
    failed(error, send, logger);
  }
}

function failed(error: unknown, send: (message: RunnerChildMessage) => void, logger: Logger): never {
  const e = error as { message?: unknown; code?: unknown; port?: unknown };
  send({
    kind: 'failed',
    message: typeof e?.message === 'string' ? e.message : String(error),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
    ...(typeof e?.port === 'number' ? { port: e.port } : {}),
  });
  logger.error({ err: error }, 'runner failed to start');
  process.exit(1);
}
