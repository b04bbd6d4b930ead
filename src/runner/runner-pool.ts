// The client of the deployment's runners: APP_RUNNER_URL names one runner or several, comma-separated
// (docs/operations.md "Production topology"). With one, it is client.ts's client of that runner, unchanged.
// With several, calls go round-robin, and a call no runner took (not_sent: refused, unresolved, no
// connection in time; busy: the runner was at its concurrency limit) is sent to the next runner before its
// result is answered: nothing ran, so sending it elsewhere is safe and spends no attempt of the call.
// A call a runner took (any other answer, unreachable included: the module may have run) is answered as is.
import { parseRunnerUrls } from '../config/runner-urls.ts';
import {
  createRunnerClient as createOneRunnerClient,
  type RunnerClient,
  type RunnerClientOptions,
  type RunnerResult,
} from './client.ts';

/** Codes of a call no runner took: trying the next runner is safe. */
const NOT_TAKEN: ReadonlySet<string> = new Set(['not_sent', 'busy']);

/** The runners' indexes in the order a call tries them: from `start`, each once, wrapping round. */
export function tryOrder(start: number, count: number): number[] {
  return Array.from({ length: count }, (_, offset) => (start + offset) % count);
}

/** The base URLs a client option names: a comma list is split; one URL stays as given. */
export function baseUrlsOf(baseUrl: string): string[] {
  if (!baseUrl.includes(',')) return [baseUrl];
  const parsed = parseRunnerUrls(baseUrl);
  if (!parsed.ok) throw new Error(`APP_RUNNER_URL: ${parsed.problem}`);
  return parsed.urls;
}

/** One client over several runners: round-robin, a call no runner took tried on the next. */
export function spreadAcross(runners: RunnerClient[]): RunnerClient {
  let next = 0;
  async function call<T>(send: (runner: RunnerClient) => Promise<RunnerResult<T>>): Promise<RunnerResult<T>> {
    const start = next;
    next = (next + 1) % runners.length;
    let result: RunnerResult<T> | null = null;
    for (const index of tryOrder(start, runners.length)) {
      result = await send(runners[index] as RunnerClient);
      if (result.ok || !NOT_TAKEN.has(result.code)) return result;
    }
    return result as RunnerResult<T>;
  }
  return {
    inspect: (bytes, tenantId) => call((runner) => runner.inspect(bytes, tenantId)),
    invoke: (body) => call((runner) => runner.invoke(body)),
    handleWebhook: (body) => call((runner) => runner.handleWebhook(body)),
    handoff: (body) => call((runner) => runner.handoff(body)),
    close: async () => {
      await Promise.all(runners.map((runner) => runner.close()));
    },
  };
}

/** The client of APP_RUNNER_URL's runner, or of its runners when it lists several. */
export function createRunnerClient(options: RunnerClientOptions): RunnerClient {
  const urls = baseUrlsOf(options.baseUrl);
  if (urls.length === 1) return createOneRunnerClient(options);
  return spreadAcross(urls.map((baseUrl) => createOneRunnerClient({ ...options, baseUrl })));
}
