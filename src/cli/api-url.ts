// Where a command that talks to the api over HTTP (`platform webhooks listen`, `app publish`) finds it, one
// rule for all: --api-url, else API_URL, else the platform running from this DATA_DIR (the address its
// `platform start` recorded in DATA_DIR/api.json), else HOST and PORT on this machine (http://127.0.0.1:3000
// by default). A failure to reach it names the URL tried and where that URL came from.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomically } from '../atomic-file.ts';
import type { Config } from '../config.ts';
import { isAlive } from '../db/data-dir-lock.ts';
import { UsageError } from './usage.ts';

/** DATA_DIR/api.json: `{ pid, url }` of the platform whose api runs from that DATA_DIR. */
export const RUNNING_API_FILE = 'api.json';

export const API_URL_HELP =
  "the platform's API (default: $API_URL, else the platform running from DATA_DIR, else http://127.0.0.1:$PORT)";

export interface ApiUrl {
  /** The api's base URL, without a trailing slash. */
  url: string;
  /** Where it came from, as the user would name it: `--api-url`, `API_URL`, … */
  from: string;
}

export interface ApiUrlSources {
  /** --api-url as given (undefined when not given). */
  option: string | undefined;
  /** The API_URL setting (undefined or empty when not set). */
  env: string | undefined;
  /** The address the platform running from DATA_DIR recorded, or null when none runs. */
  running: { url: string; dataDir: string } | null;
  /** HOST and PORT: where this machine's platform listens when nothing else says. */
  host: string;
  port: number;
}

/** The URL a command uses and where it came from, by the rule above. Pure. */
export function chooseApiUrl(sources: ApiUrlSources): ApiUrl {
  const env = sources.env?.trim();
  const [url, from] =
    sources.option !== undefined
      ? [sources.option, '--api-url']
      : env
        ? [env, 'API_URL']
        : sources.running
          ? [sources.running.url, `the platform running from ${sources.running.dataDir}`]
          : [localApiUrl(sources.host, sources.port), 'HOST and PORT'];
  return { url: checkedUrl(url, from), from };
}

function checkedUrl(text: string, from: string): string {
  const url = URL.canParse(text) ? new URL(text) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new UsageError(`${from}: an http or https URL such as http://127.0.0.1:3000, got "${text}"`);
  return url.href.replace(/\/+$/, '');
}

/** The api on this machine at host:port: a wildcard host is reached on loopback. Pure. */
export function localApiUrl(host: string, port: number): string {
  const reachable = host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** The api's URL for a command of this clone: `option` (--api-url), else the settings in `env`, … */
export async function findApiUrl(
  option: string | undefined,
  config: Pick<Config, 'dataDir' | 'host' | 'port'>,
  env: Record<string, string | undefined> = process.env,
): Promise<ApiUrl> {
  const needsRunning = option === undefined && !env.API_URL?.trim();
  const running = needsRunning ? await readRunningApi(config.dataDir) : null;
  return chooseApiUrl({
    option,
    env: env.API_URL,
    running: running === null ? null : { url: running, dataDir: config.dataDir },
    host: config.host,
    port: config.port,
  });
}

/** The URL the live platform of DATA_DIR recorded, or null (none recorded, or its process is gone). */
export async function readRunningApi(dataDir: string): Promise<string | null> {
  const record = await readRecord(path.join(dataDir, RUNNING_API_FILE));
  return record && isAlive(record.pid) ? record.url : null;
}

async function readRecord(file: string): Promise<{ pid: number; url: string } | null> {
  const text = await fs.readFile(file, 'utf8').catch(() => null);
  try {
    const { pid, url } = JSON.parse(text ?? 'null') ?? {};
    return Number.isInteger(pid) && pid > 0 && typeof url === 'string' ? { pid, url } : null;
  } catch {
    return null;
  }
}

const recordedPid = async (file: string) => (await readRecord(file))?.pid ?? null;

/**
 * Records the api's address in DATA_DIR for the commands above; answers what removes the record (only if it
 * is still this process's). An api listening on every interface is recorded at loopback. A DATA_DIR that
 * cannot be written is logged and passed over: the commands then fall back to HOST and PORT.
 */
export async function recordRunningApi(
  dataDir: string,
  apiUrl: string,
  logger: Pick<Logger, 'warn'>,
): Promise<() => Promise<void>> {
  const file = path.join(dataDir, RUNNING_API_FILE);
  const { port, hostname } = new URL(apiUrl);
  const url = localApiUrl(hostname.replace(/^\[|\]$/g, ''), Number(port));
  try {
    await writeFileAtomically(file, `${JSON.stringify({ pid: process.pid, url })}\n`);
  } catch (err) {
    logger.warn({ err, file }, 'the api address could not be recorded for the commands of this DATA_DIR');
    return async () => {};
  }
  return async () => {
    if ((await recordedPid(file)) === process.pid) await fs.rm(file, { force: true });
  };
}

/** A request that never reached the api: names the URL, where it came from, and why. */
export class ApiUnreachable extends Error {
  constructor(api: ApiUrl, error: unknown) {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const reason = String(cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : error));
    super(
      `cannot reach the platform at ${api.url} (${reason}; the URL from ${api.from}): is it running? --api-url or API_URL names another`,
    );
  }
}

/** fetch() against the api: a failure to connect becomes ApiUnreachable. */
export async function fetchApi(api: ApiUrl, route: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(`${api.url}${route}`, init);
  } catch (error) {
    throw new ApiUnreachable(api, error);
  }
}
