// What a command a test runs as a child gets: a clean environment and free ports for every listener
// `platform start` opens. Apart from processes.ts because the run's global set-up (which must not load
// vitest's test API) starts one too (data-dir-template.ts).
import { freePort } from './free-port.ts';

export type Env = Record<string, string>;

export interface Ports {
  PORT: string;
  API_INTERNAL_PORT: string;
  RUNNER_PORT: string;
  EMBEDDED_POSTGRES_PORT: string;
  WORKER_HEALTH_PORT: string;
}

export async function freePorts(): Promise<Ports> {
  const ports = new Set<number>();
  while (ports.size < 5) ports.add(await freePort());
  const [api, internal, runner, postgres, worker] = [...ports].map(String) as [
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    PORT: api,
    API_INTERNAL_PORT: internal,
    RUNNER_PORT: runner,
    EMBEDDED_POSTGRES_PORT: postgres,
    WORKER_HEALTH_PORT: worker,
  };
}

/** A clean environment: nothing of the test runner's (NODE_ENV=test, DATABASE_URL, ...) leaks in. */
export function baseEnv(extra: Env): Env {
  const env: Env = { LOG_LEVEL: 'warn' };
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}
