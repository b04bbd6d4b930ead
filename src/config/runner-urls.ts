// APP_RUNNER_URL: one runner base URL, or several separated by commas (docs/operations.md "Production
// topology"). Pure: the list's spelling rules, table-tested in test/config/runner-urls.test.ts.
import { HTTP_SCHEMES, type Reader } from './reader.ts';

export type RunnerUrlsParse = { ok: true; urls: string[] } | { ok: false; problem: string };

/** The runner base URLs of a list: each an http(s) URL without credentials, none twice, at least one. */
export function parseRunnerUrls(raw: string): RunnerUrlsParse {
  const items = raw.split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) return { ok: false, problem: 'an empty item in the list' };
  const urls: string[] = [];
  for (const item of items) {
    let url: URL | null = null;
    try {
      url = new URL(item);
    } catch {}
    if (url === null || !(HTTP_SCHEMES as readonly string[]).includes(url.protocol.slice(0, -1))) {
      return { ok: false, problem: `"${item}" is not an http:// or https:// URL` };
    }
    // The runner is reached with its bearer token, never with credentials in its address.
    if (url.username !== '' || url.password !== '') {
      return { ok: false, problem: 'a runner URL carries credentials' };
    }
    if (url.search !== '' || url.hash !== '') {
      return { ok: false, problem: `"${url.origin}…" has a query or fragment` };
    }
    const normalised = url.href.replace(/\/+$/, '');
    if (urls.includes(normalised)) return { ok: false, problem: `"${normalised}" is listed twice` };
    urls.push(normalised);
  }
  return { ok: true, urls };
}

/** The runner of this host on RUNNER_PORT: APP_RUNNER_URL when unset. */
export const localRunnerUrl = (runnerPort: number): string => `http://127.0.0.1:${runnerPort}`;

/**
 * APP_RUNNER_URL as the config holds it: null when `off`, the local runner when unset, one URL as given
 * (checked as every URL setting is), a list normalised and joined by commas.
 */
export function readRunnerUrl(read: Reader, runnerPort: number): string | null {
  const raw = read.text('APP_RUNNER_URL');
  const local = localRunnerUrl(runnerPort);
  if (raw === 'off') return null;
  if (raw === null) return local;
  if (!raw.includes(',')) return read.url('APP_RUNNER_URL', HTTP_SCHEMES) ?? local;
  const parsed = parseRunnerUrls(raw);
  if (parsed.ok) return parsed.urls.join(',');
  read.problems.push(`APP_RUNNER_URL: ${parsed.problem}`);
  return local;
}
