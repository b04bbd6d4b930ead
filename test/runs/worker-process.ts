// Real `platform start --role worker` and `--role api` children on a test's database, and waiting on state (never sleeping
// to synchronise): what the recovery, sweep and apps-off tests drive runs with.
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../support/free-port.ts';
import { BIN, baseEnv, children, collect, ROOT } from '../support/processes.ts';

/** `platform start --role worker` with `env`; resolves once its /healthz answers 200. */
export async function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const healthPort = await freePort();
  const child = spawn(process.execPath, [BIN, 'start', '--role', 'worker'], {
    cwd: ROOT,
    detached: true,
    env: baseEnv({ ...env, WORKER_HEALTH_PORT: String(healthPort), HOST: '127.0.0.1' }),
  });
  children.add(child);
  const { exited, err } = collect(child);
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const giveUpAt = Date.now() + 90_000;
  for (;;) {
    if (gone) throw new Error(`the worker exited before it was healthy:\n${err()}`);
    const health = await fetch(`http://127.0.0.1:${healthPort}/healthz`).catch(() => null);
    if (health?.status === 200) return child;
    if (Date.now() > giveUpAt) throw new Error(`the worker was not healthy in 90 s:\n${err()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `platform start --role api` with `env` (production settings: DATABASE_URL, the runner, the identity
 * provider) on `port`; resolves once /health answers 200, which is after the start-up's release catalogue
 * and automatic-upgrade sweep.
 */
export async function startApiProcess(env: Record<string, string>, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'start', '--role', 'api'], {
    cwd: ROOT,
    detached: true,
    env: baseEnv({
      API_RATE_LIMIT_PER_MINUTE: '0',
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
      // A test whose runner is another process gives the port that runner fetches modules from.
      API_INTERNAL_PORT: env.API_INTERNAL_PORT ?? String(await freePort()),
    }),
  });
  children.add(child);
  const { exited, err } = collect(child);
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  await until(
    'the api’s health',
    async () => {
      if (gone) throw new Error(`the api exited before it was healthy:\n${err()}`);
      const health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
      return health?.status === 200 ? true : null;
    },
    90_000,
  );
  return child;
}

/** Polls `probe` until it answers something other than null; fails naming `what` after `limitMs`. */
export async function until<T>(what: string, probe: () => Promise<T | null>, limitMs = 60_000): Promise<T> {
  const giveUpAt = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > giveUpAt) throw new Error(`${what} did not happen in ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
