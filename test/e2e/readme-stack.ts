import createClient from 'openapi-fetch';
import { expect } from 'vitest';
import type { paths } from '../support/api-types.ts';
import { expectContractKept, fetchContract } from '../support/contract.ts';
import { freePort } from '../support/free-port.ts';
import {
  BIN,
  baseEnv,
  freePorts,
  OPS_BIN,
  type Ports,
  type Result,
  type Running,
  run,
  signal,
  startedDataDir,
  startPlatform,
  startServingCommand,
  startVendorDoubleCommand,
  type VendorProcess,
} from '../support/processes.ts';

export interface Answer {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field in the expectations
  body: any;
}

/** An openapi-fetch result as the expectations read it: the status, the body (data or error), as text too. */
export async function answer(
  pending: Promise<{ data?: unknown; error?: unknown; response: Response }>,
): Promise<Answer> {
  const { data, error, response } = await pending;
  const body = data ?? error ?? null;
  return { status: response.status, text: JSON.stringify(body), body };
}

export interface ReadmeStack {
  platform: Running;
  /** The API address the platform printed. */
  api: string;
  client: ReturnType<typeof createClient<paths>>;
  /** Every answer's text, in order. */
  answers: string[];
  /**
   * Terminal 2, 4, …: `npx app vendor-double --port <port> [args…]` on a free port; its `host:port`
   * (`--idv --webhook-secret <s>` plays the identity-verification vendor).
   */
  startVendor(args?: readonly string[]): Promise<{ vendor: VendorProcess; host: string }>;
  /** Another `npx platform <args>` in the same clone (an applicant's token, say), to its end. */
  command(args: string[]): Promise<Result>;
  /** `npx ops <args>` in the same clone, on the running platform's database, to its end. */
  ops(args: string[]): Promise<Result>;
  /** A client like `client` acting with another token (an applicant's), its answers checked the same way. */
  clientWith(token: string): ReturnType<typeof createClient<paths>>;
  /** Another `npx platform <args>` that serves until stopped (`webhooks listen`), once it is listening. */
  serve(args: string[]): Promise<VendorProcess>;
  /** The admin token of terminal 3. */
  token: string;
  /** Terminal 1's environment (its DATA_DIR and ports): a README line run in the clone needs it. */
  env: Record<string, string>;
  /** Ctrl-C to the platform's process group, SIGTERM to every vendor double; their exits. */
  stop(): Promise<{ platform: Result; vendors: Result[] }>;
}

export async function startReadmeStack(
  tenant: string,
  prefix: string,
  /** More settings for terminal 1 (`WEBHOOK_ALLOW_PRIVATE_NETWORKS=true npm start`). */
  settings: Record<string, string> = {},
): Promise<ReadmeStack> {
  // As the README's first `npm start` left it (startedDataDir): first starts are cli.test.ts's subject.
  const dataDir = await startedDataDir(prefix);
  const ports = await freePorts();
  // LOG_LEVEL as a plain `npm start` has it, so a secret check covers the request log too.
  const env = baseEnv({
    ...ports,
    DATA_DIR: dataDir,
    APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'info',
    ...settings,
  });

  // Terminal 1: APP_RUNNER_ALLOW_PRIVATE_NETWORKS=true npm start
  const platform = await startPlatform(['--role', 'all'], env);
  const api = /^ {2}API {8}(http\S+)$/m.exec(platform.stdout)?.[1];
  expect(api, platform.stdout).toBe(`http://127.0.0.1:${ports.PORT}`);

  const vendors: VendorProcess[] = [];
  const startVendor = async (args: readonly string[] = []) => {
    const port = await vendorPort(ports);
    const vendor = await startVendorDoubleCommand(port, baseEnv({}), args);
    vendors.push(vendor);
    const host = `127.0.0.1:${port}`;
    const kind = args.includes('--idv') ? 'identity-verification vendor double' : 'vendor double';
    expect(vendor.stdout()).toBe(`${kind} listening on http://${host} (approve host ${host})\n`);
    return { vendor, host };
  };

  // Terminal 3: TOKEN=$(npx platform token --tenant <tenant> --role admin)
  const minted = await run(['token', '--tenant', tenant, '--role', 'admin'], env);
  expect(minted.code, minted.stderr).toBe(0);
  const token = minted.stdout.trim();
  expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

  // The README's calls through a client generated from /openapi.json (openapi-typescript types,
  // openapi-fetch): a tenant's generated client works; every answer also keeps the description.
  const answers: string[] = [];
  const contract = await fetchContract(api as string);
  const clientWith = (bearer: string) => {
    const made = createClient<paths>({
      baseUrl: api,
      headers: { authorization: `Bearer ${bearer}` },
      // A hung step fails naming itself rather than running into the test's timeout.
      fetch: (request) => fetch(request, { signal: AbortSignal.timeout(60_000) }),
    });
    made.use({
      async onResponse({ request, response }) {
        answers.push(await response.clone().text());
        await expectContractKept(contract, request.method, response);
      },
    });
    return made;
  };
  const client = clientWith(token);

  const stop = async () => {
    signal(platform, 'SIGINT');
    for (const vendor of vendors) {
      if (vendor.child.exitCode === null && vendor.child.signalCode === null) signal(vendor.child, 'SIGTERM');
    }
    const [exit, ...vendorExits] = await Promise.all([platform.exited, ...vendors.map((v) => v.exited)]);
    return { platform: exit, vendors: vendorExits };
  };
  const command = (args: string[]) => run(args, env);
  const ops = (args: string[]) => run(args, env, { bin: OPS_BIN });
  const serve = async (args: string[]) => {
    const serving = await startServingCommand(BIN, args, env, `platform ${args.join(' ')}`);
    vendors.push(serving);
    return serving;
  };
  return {
    platform,
    api: api as string,
    client,
    answers,
    startVendor,
    command,
    ops,
    serve,
    token,
    env,
    clientWith,
    stop,
  };
}

/** A free port that is none of the platform's (reserved by name only until each role binds). */
async function vendorPort(ports: Ports): Promise<number> {
  const taken = new Set(Object.values(ports));
  let port = await freePort();
  while (taken.has(String(port))) port = await freePort();
  return port;
}

/** Polls a workflow run until it is no longer running; its last answer. */
export async function settledRun(client: ReadmeStack['client'], runId: string): Promise<Answer> {
  let polled: Answer | undefined;
  await expect
    .poll(
      async () => {
        polled = await answer(client.GET('/workflow-runs/{id}', { params: { path: { id: runId } } }));
        return polled.body?.status;
      },
      { timeout: 60_000, interval: 50 },
    )
    .not.toBe('running');
  return polled as Answer;
}
