// `app vendor-double --idv`: a double of a hosted identity-verification vendor, speaking the sessions API
// the release's identity-verification app calls (apps/identity-verification/README.md), so a newcomer can
// run a verification end to end on one machine. The vendor's side of it:
//   POST /v1/sessions          opens a session and remembers the callbackUrl the module sent
//   GET  /v1/sessions/:id      the session and its hosted page (remembers the redirectUrl)
//   GET  /hosted/:id           the hosted page: a small HTML page, with Approve and Decline buttons
//   POST /hosted/:id           the applicant's answer on that page: decides, then sends them back
//   POST /__double/sessions/:id/decide   the tester decides with curl (decisionOf below)
//   GET  /__double/sessions              every session, newest last
// Deciding POSTs the vendor's webhook to the session's callbackUrl, signed as the app checks it
// (x-idv-signature: hex HMAC-SHA256 of the exact body bytes under the webhook secret), and answers what the
// platform answered. One line per event is printed through `print`.
import { randomBytes } from 'node:crypto';
import {
  startVendorDouble,
  type VendorAnswer,
  type VendorDoubleOptions,
  type VendorRequest,
} from '../../packages/app-testing/src/vendor-double.ts';
import { CONTROL_PREFIX } from '../../packages/app-testing/src/vendor-outage.ts';
import { signedWebhook } from '../../packages/app-testing/src/webhooks.ts';

export const SIGNATURE_HEADER = 'x-idv-signature';
export const DECIDE_ROUTE = `${CONTROL_PREFIX}sessions/:id/decide`;
export const SESSIONS_ROUTE = `${CONTROL_PREFIX}sessions`;
/** How long a session's page stays valid, as the vendor tells the platform (expiresAt). */
const PAGE_LIFETIME_MS = 60 * 60 * 1000;
/** The platform's webhook route may wait for its runner (some 25 s at worst); a dead one must not hang curl. */
const WEBHOOK_TIMEOUT_MS = 60_000;

/** The statuses the vendor's webhook reports, as the app reads them. */
const DECISIONS = ['approved', 'declined'] as const;
const STILL_RUNNING = ['review', 'pending'] as const;
const FAILED = ['error', 'expired', 'cancelled'] as const;
const STATUSES: readonly string[] = [...DECISIONS, ...STILL_RUNNING, ...FAILED];

export type Decision = (typeof DECISIONS)[number];

/** A decide request, checked: what the webhook body carries besides the session id. */
export interface Verdict {
  status: string;
  decision?: Decision;
  reasons: unknown[];
  error?: string;
  eventId?: string;
}

/** A decide body the double refuses: the control route answers it 400 with its message. */
export class VerdictError extends Error {}

const isDecision = (value: unknown): value is Decision => DECISIONS.includes(value as Decision);

/**
 * The verdict of a decide body `{ decision?, status?, reasons?, error?, eventId? }`: `status` is the
 * vendor's (approved, declined, review, pending, error, expired, cancelled) and defaults to the decision;
 * a decision defaults to an approved or declined status; the two may not contradict each other, and
 * unknown fields are refused, so a typo shows at once rather than as a webhook unlike the one meant.
 */
export function decisionOf(body: unknown): Verdict {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new VerdictError('the body is a JSON object like { "decision": "approved" }');
  const { decision, status, reasons, error, eventId, ...rest } = body as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new VerdictError(
      `unknown field ${unknown[0]}: a decision takes decision, status, reasons, error and eventId`,
    );
  if (decision !== undefined && !isDecision(decision))
    throw new VerdictError(`decision must be approved or declined, not ${JSON.stringify(decision)}`);
  if (status !== undefined && !STATUSES.includes(status as string))
    throw new VerdictError(`status must be one of ${STATUSES.join(', ')}, not ${JSON.stringify(status)}`);
  if (decision === undefined && status === undefined)
    throw new VerdictError('give a decision (approved or declined) or a status');
  if (decision !== undefined && isDecision(status) && status !== decision)
    throw new VerdictError(`status ${status} contradicts decision ${decision}`);
  if (reasons !== undefined && !Array.isArray(reasons))
    throw new VerdictError('reasons is a list of texts or { code, description } objects');
  if (error !== undefined && typeof error !== 'string') throw new VerdictError('error is a text');
  if (eventId !== undefined && (typeof eventId !== 'string' || eventId.length < 1 || eventId.length > 200))
    throw new VerdictError('eventId is a text of 1 to 200 characters');
  const verdict: Verdict = { status: (status ?? decision) as string, reasons: reasons ?? [] };
  const decided = decision ?? (isDecision(status) ? status : undefined);
  if (decided) verdict.decision = decided;
  if (error !== undefined) verdict.error = error;
  if (eventId !== undefined) verdict.eventId = eventId;
  return verdict;
}

export interface IdvSession {
  id: string;
  /** The vendor's status: pending until decided, then the last decided status. */
  status: string;
  reference: string | null;
  /** Where the module asked for webhooks (the install's webhook URL); null: it sent none. */
  callbackUrl: string | null;
  /** Where the hosted page sends the applicant back, from the last GET /v1/sessions/:id. */
  redirectUrl: string | null;
  url: string;
  expiresAt: string;
  /** Webhooks sent for it, oldest first, with what the platform answered. */
  webhooks: { eventId: string; status: string; answered: PlatformAnswer | null }[];
}

/** What the platform answered a webhook: its status and body (JSON when it was JSON, else text). */
export interface PlatformAnswer {
  status: number;
  body: unknown;
}

export interface IdvVendorOptions {
  /** 0 takes a free one. */
  port: number;
  /** The install's WEBHOOK_SECRET: webhooks are signed with it. */
  webhookSecret: string;
  /** When set, the sessions API answers 401 to a request without `Authorization: Bearer <apiKey>`. */
  apiKey?: string | null;
  /** One line per event (a session opened, read, decided; an unknown path). */
  print?: (line: string) => void;
  onOutage?: VendorDoubleOptions['onOutage'];
}

export interface IdvVendor {
  url: string;
  host: string;
  sessions: ReadonlyMap<string, IdvSession>;
  close(): Promise<void>;
}

type Decided =
  | { ok: true; session: IdvSession; sent: Record<string, unknown>; platform: PlatformAnswer }
  | { ok: false; status: number; error: string };

export async function startIdvVendor(options: IdvVendorOptions): Promise<IdvVendor> {
  const print = options.print ?? (() => {});
  const sessions = new Map<string, IdvSession>();
  let base = '';
  let events = 0;

  const refusedKey = (request: VendorRequest): VendorAnswer | null => {
    if (!options.apiKey || request.headers.authorization === `Bearer ${options.apiKey}`) return null;
    print(`${request.method} ${request.path}: 401, not the API key the double was started with`);
    return { status: 401, json: { message: 'invalid API key' } };
  };
  const view = (s: IdvSession) => ({ id: s.id, status: s.status, url: s.url, expiresAt: s.expiresAt });
  const sessionOf = (request: VendorRequest) => sessions.get(request.params.id ?? '');

  const open = (request: VendorRequest): VendorAnswer => {
    const refused = refusedKey(request);
    if (refused) return refused;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      return { status: 400, json: { message: 'the body is not JSON' } };
    }
    // Random ids: a double restarted against the same install must not reuse an id its sessions hold.
    const id = `sess_${randomBytes(6).toString('hex')}`;
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    const session: IdvSession = {
      id,
      status: 'pending',
      reference: text(body.reference),
      callbackUrl: text(body.callbackUrl),
      redirectUrl: null,
      url: `${base}/hosted/${id}`,
      expiresAt: new Date(Date.now() + PAGE_LIFETIME_MS).toISOString(),
      webhooks: [],
    };
    sessions.set(id, session);
    const to = session.callbackUrl ? `webhooks to ${session.callbackUrl}` : 'no callbackUrl: no webhooks';
    print(`POST /v1/sessions: opened ${id} (reference ${session.reference ?? 'none'}; ${to})`);
    return { status: 201, json: view(session) };
  };

  const read = (request: VendorRequest): VendorAnswer => {
    const refused = refusedKey(request);
    if (refused) return refused;
    const session = sessionOf(request);
    if (!session) {
      print(`GET ${request.path}: 404, no such session`);
      return { status: 404, json: { message: 'no such session' } };
    }
    if (request.query.redirectUrl) session.redirectUrl = request.query.redirectUrl;
    const back = session.redirectUrl ? ` (returns to ${session.redirectUrl})` : '';
    print(`GET /v1/sessions/${session.id}: ${session.status}${back}`);
    return { json: view(session) };
  };

  const decide = async (session: IdvSession, verdict: Verdict): Promise<Decided> => {
    if (!session.callbackUrl) {
      const error = `session ${session.id} has no callbackUrl (the module sent none), so no webhook can go`;
      print(`decide ${session.id}: ${error}`);
      return { ok: false, status: 409, error };
    }
    const eventId = verdict.eventId ?? `evt_${session.id}_${++events}`;
    const sent: Record<string, unknown> = { sessionId: session.id, eventId, status: verdict.status };
    if (verdict.decision) sent.decision = verdict.decision;
    sent.reasons = verdict.reasons;
    if (verdict.error !== undefined) sent.error = verdict.error;
    // The body is signed as text and sent as that same text: the app checks the bytes that arrive.
    const signed = signedWebhook({ secret: options.webhookSecret, header: SIGNATURE_HEADER, body: sent });
    session.status = verdict.status;
    const record = { eventId, status: verdict.status, answered: null as PlatformAnswer | null };
    session.webhooks.push(record);
    const line = `decide ${session.id} ${verdict.status}: POST ${session.callbackUrl} (event ${eventId})`;
    try {
      const response = await fetch(session.callbackUrl, {
        method: 'POST',
        headers: signed.headers,
        body: signed.body as string,
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      record.answered = { status: response.status, body };
      print(`${line} answered ${response.status} ${text}`);
      return { ok: true, session, sent, platform: record.answered };
    } catch (error) {
      // fetch's own message is only "fetch failed"; the cause says why (refused, timed out, bad port).
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      const why = cause instanceof Error ? cause.message : String(cause);
      print(`${line} failed: ${why}`);
      return { ok: false, status: 502, error: `the webhook to ${session.callbackUrl} failed: ${why}` };
    }
  };

  const decideRoute = async (request: VendorRequest): Promise<VendorAnswer> => {
    const session = sessionOf(request);
    if (!session) return { status: 404, json: { error: `no session ${request.params.id}` } };
    let verdict: Verdict;
    try {
      verdict = decisionOf(JSON.parse(request.body || 'null'));
    } catch (error) {
      if (error instanceof SyntaxError) return refuse(`the body is not JSON: ${error.message}`);
      if (error instanceof VerdictError) return refuse(error.message);
      throw error;
    }
    const decided = await decide(session, verdict);
    if (!decided.ok) return { status: decided.status, json: { error: decided.error } };
    return { json: { session: view(session), sent: decided.sent, platform: decided.platform } };
  };

  const page = (request: VendorRequest): VendorAnswer => {
    const session = sessionOf(request);
    if (!session) return html(404, '<p>No such session.</p>');
    print(`GET /hosted/${session.id}: the hosted page (${session.status})`);
    return html(200, pageBody(session, base));
  };

  // The applicant's answer on the hosted page: the vendor decides, then sends them back to the platform's
  // flow (the redirectUrl the hand-off gave), as a hosted vendor page does.
  const answered = async (request: VendorRequest): Promise<VendorAnswer> => {
    const session = sessionOf(request);
    if (!session) return html(404, '<p>No such session.</p>');
    const decision = new URLSearchParams(request.body).get('decision');
    if (!isDecision(decision)) return html(400, '<p>Choose Approve or Decline.</p>');
    const decided = await decide(session, { status: decision, decision, reasons: [] });
    if (!decided.ok) return html(decided.status, `<p>${htmlText(decided.error)}</p>`);
    return { status: 303, headers: { location: session.redirectUrl ?? session.url }, body: '' };
  };

  const vendor = await startVendorDouble(
    [
      { method: 'POST', path: '/v1/sessions', respond: open },
      { method: 'GET', path: '/v1/sessions/:id', respond: read },
      { method: 'GET', path: '/hosted/:id', respond: page },
      { method: 'POST', path: '/hosted/:id', respond: answered },
    ],
    {
      port: options.port,
      onOutage: options.onOutage,
      onRequest: (request) => {
        if (request.outage)
          print(`${request.method} ${request.path}: answered by the outage ${request.outage}`);
        else if (!request.matched) print(`${request.method} ${request.path}: 404, no such route`);
      },
      controls: [
        { method: 'POST', path: DECIDE_ROUTE, respond: decideRoute },
        {
          method: 'GET',
          path: SESSIONS_ROUTE,
          respond: () => ({ json: { items: [...sessions.values()] } }),
        },
      ],
    },
  );
  base = vendor.url;
  return { url: vendor.url, host: vendor.host, sessions, close: () => vendor.close() };
}

const refuse = (error: string): VendorAnswer => ({ status: 400, json: { error } });

function html(status: number, body: string): VendorAnswer {
  const page = `<!doctype html>\n<html><head><meta charset="utf-8"><title>Identity verification (vendor double)</title></head>\n<body>${body}</body></html>\n`;
  return { status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: page };
}

const htmlText = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The hosted page: the session, and what the applicant (or the tester) can do with it. */
function pageBody(session: IdvSession, base: string): string {
  const id = htmlText(session.id);
  const head = `<h1>Identity verification</h1>\n<p>Session <code>${id}</code>: <strong>${htmlText(session.status)}</strong></p>`;
  const back = session.redirectUrl
    ? `\n<p><a href="${htmlText(session.redirectUrl)}">Back to where you came from</a></p>`
    : '';
  if (session.status !== 'pending') return `${head}${back}`;
  const curl = `curl -X POST ${base}${DECIDE_ROUTE.replace(':id', session.id)} -d '{"decision":"approved"}'`;
  return (
    `${head}\n<form method="post"><button name="decision" value="approved">Approve</button> ` +
    `<button name="decision" value="declined">Decline</button></form>\n` +
    `<p>Or from a terminal: <code>${htmlText(curl)}</code></p>${back}`
  );
}
