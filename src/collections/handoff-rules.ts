// The hand-off's rules (docs/handoff.md), pure: which vendor session an applicant is handed off for,
// where the vendor's page sends them back, and which pages the platform sends them to. What the database
// holds comes in as arguments; nothing here reads or writes it.
import { BAD_PORTS } from '../installs/index.ts';
import type { Manifest } from '../module/index.ts';
import { checkTarget, isIpLiteral } from '../runner/index.ts';

/** Pending sessions of a run the hand-off looks at: its newest ones only. */
export const HANDOFF_SESSIONS_READ = 20;
/** The longest returnUrl a module is given, and the longest page address it may answer. */
export const MAX_RETURN_URL_LENGTH = 2000;
export const MAX_PAGE_URL_LENGTH = 4000;

/** One pending session of the run as the hand-off reads it: its version, its install (null: removed). */
export interface SessionCandidate<S = unknown> {
  session: S;
  version: { manifest: Pick<Manifest, 'handles'> };
  /** Whether an operator block covers the session's version (its hash, or its publisher's app). */
  blocked: boolean;
  install: { enabled: boolean } | null;
}

/**
 * The session to hand the applicant off for: of the run's newest pending sessions (newest first, at most
 * HANDOFF_SESSIONS_READ), the first whose version declares handles.handoff, is not blocked, and whose
 * install still exists and is enabled. null: none is (the hand-off is unavailable).
 */
export function handoffCandidate<S, C extends SessionCandidate<S>>(newestFirst: readonly C[]): C | null {
  for (const candidate of newestFirst.slice(0, HANDOFF_SESSIONS_READ)) {
    if (candidate.version.manifest.handles?.handoff !== true) continue;
    if (candidate.blocked) continue;
    if (!candidate.install?.enabled) continue;
    return candidate;
  }
  return null;
}

export type ReturnUrl = { ok: true; url: string } | { ok: false; reason: string };

/**
 * Where the vendor's page sends the applicant back: the tenant's collection.flowUrl, else the
 * deployment's COLLECTION_FLOW_URL, then /flow/<submission id> (after the base's own path; its query
 * kept after it). Never from the request. Neither set, or the result longer than a module takes: none.
 */
export function returnUrlOf(
  flowUrls: { tenant: string | null; deployment: string | null },
  submissionId: string,
): ReturnUrl {
  const base = flowUrls.tenant ?? flowUrls.deployment;
  if (base === null) {
    return { ok: false, reason: 'neither the tenant’s collection.flowUrl nor COLLECTION_FLOW_URL is set' };
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return { ok: false, reason: 'the collection flow URL is not a valid absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: 'the collection flow URL must use http or https' };
  }
  url.hash = '';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/flow/${encodeURIComponent(submissionId)}`;
  const text = url.toString();
  if (text.length > MAX_RETURN_URL_LENGTH) {
    return {
      ok: false,
      reason: `the return address would be longer than ${MAX_RETURN_URL_LENGTH} characters`,
    };
  }
  return { ok: true, url: text };
}

/**
 * White space and C0 or C1 controls. The URL parser drops tab, CR and LF and trims spaces and controls, so
 * the page checked would not be the text answered; answered as given, `…/x\r\nSet-Cookie: a=b` becomes a
 * header in a flow that redirects with it. A vendor's page never needs one raw (they are percent-encoded).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for.
const UNSENDABLE = /[\s\u0000-\u001f\u007f-\u009f]/u;

export type PageDecision =
  | {
      ok: true;
      /** What the audit event names: the hostname, with :port when it is not the scheme's default. */
      host: string;
    }
  | { ok: false; reason: string };

/**
 * Whether the platform sends the applicant to the page a module answered: an https page on one of the
 * install's approved hosts, at the port that host is approved with (the scheme's default for a host
 * approved without one), named (not an IP address, not localhost), without a user name or password, not
 * on a port browsers refuse to fetch from, and without spaces or control characters. With
 * APP_RUNNER_ALLOW_PRIVATE_NETWORKS (development) http, any port and IP addresses pass, still only on the
 * install's hostnames. The reason names the host at
 * most, never the address (it may carry the vendor's tokens).
 */
export function pageDecision(
  page: string,
  approvedHosts: readonly string[],
  allowPrivateNetworks: boolean,
): PageDecision {
  if (page.length > MAX_PAGE_URL_LENGTH) {
    return { ok: false, reason: `the page address is longer than ${MAX_PAGE_URL_LENGTH} characters` };
  }
  if (UNSENDABLE.test(page)) {
    return { ok: false, reason: 'the page address holds a space or a control character' };
  }
  // The runner's own check of a module's requests: https (http only on a private-network stack), no
  // credentials, never an IPv6 literal, localhost only on a private-network stack, an approved host at
  // its port (any port of an approved hostname on a private-network stack).
  const target = checkTarget(page, approvedHosts, allowPrivateNetworks);
  if (!target.ok) return { ok: false, reason: target.reason.replace(/^url /, 'the page ') };
  const { url, hostname, port } = target;
  if (!allowPrivateNetworks) {
    if (isIpLiteral(hostname)) return { ok: false, reason: 'the page must name a host, not an IP address' };
    if (BAD_PORTS.has(port))
      return { ok: false, reason: `port ${port} is one browsers refuse to fetch from` };
  }
  const defaultPort = url.protocol === 'http:' ? 80 : 443;
  return { ok: true, host: port === defaultPort ? hostname : `${hostname}:${port}` };
}
