// Real `platform start --role worker` and `--role api` children on a test's database, and waiting on state (never sleeping
// to synchronise): what the recovery, sweep and apps-off tests drive runs with.
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../support/free-port.ts';
import { BIN, baseEnv, children, collect, ROOT } from '../support/processes.ts';
import { timed } from '../support/profile.ts';

/** `platform start --role worker` with `env`; resolves once its /healthz answers 200. */
export async function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  const healthPort = await freePort();
  return startRole(
    'worker',
    { ...env, WORKER_HEALTH_PORT: String(healthPort) },
    `http://127.0.0.1:${healthPort}/healthz`,
  );
}

/**
 * `platform start --role api` with `env` (production settings: DATABASE_URL, the runner, the identity
 * provider) on `port`; resolves once /health answers 200, which is after the start-up's release catalogue
 * and automatic-upgrade sweep.
 */
export async function startApiProcess(env: Record<string, string>, port: number): Promise<ChildProcess> {
  const apiEnv = {
    API_RATE_LIMIT_PER_MINUTE: '0',
    ...env,
    PORT: String(port),
    // A test whose runner is another process gives the port that runner fetches modules from.
    API_INTERNAL_PORT: env.API_INTERNAL_PORT ?? String(await freePort()),
  };
  return startRole('api', apiEnv, `http://127.0.0.1:${port}/health`);
}

/** `platform start --role runner` with `env` on `port`; resolves once its /health answers 200. */
export function startRunnerRole(env: Record<string, string>, port: number): Promise<ChildProcess> {
  return startRole('runner', { ...env, RUNNER_PORT: String(port) }, `http://127.0.0.1:${port}/health`);
}

/** `platform start --role <role>` on loopback with `env`; resolves once `health` answers 200. */
function startRole(role: string, env: Record<string, string>, health: string): Promise<ChildProcess> {
  return timed('starting', () => startRoleAndWaitForHealth(role, env, health));
}

async function startRoleAndWaitForHealth(
  role: string,
  env: Record<string, string>,
  health: string,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'start', '--role', role], {
    cwd: ROOT,
    detached: true,
    env: baseEnv({ ...env, HOST: '127.0.0.1' }),
  });
  children.add(child);
  const { exited, err } = collect(child);
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  await until(
    `the ${role}’s health`,
    async () => {
      if (gone) throw new Error(`the ${role} exited before it was healthy:\n${err()}`);
      const answer = await fetch(health).catch(() => null);
      return answer?.status === 200 ? true : null;
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
