// The http_request host function: how an app reaches its vendors (docs/module-contract.md "http_request").
//
// Request (the JSON the module sends):
//   {
//     "method": "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS",   (any letter case)
//     "url": "https://api.vendor.com/v1/things?id=1",     at most 8192 characters
//     "headers": { "name": "value", … },                  optional; names are sent lower-cased
//     "body": "text sent as UTF-8",                        optional; or instead:
//     "bodyBase64": "AAEC…",                               optional; bytes sent as they are, never filled
//     "timeoutMs": 10000,                                  optional; 1 to 30000, default 10000
//     "auth": { "type": "basic" | "digest", "username": "…", "password": "…" }
//           | { "type": "bearer", "token": "…" }           optional
//   }
//   Any other field is refused. The host owns the headers host, content-length, transfer-encoding,
//   connection, keep-alive, upgrade, te, trailer, expect, proxy-connection and proxy-authorization;
//   giving one is refused, as is an authorization header together with auth. A user-agent is sent
//   unless the module gives one.
//
// Secrets: `{{secret:NAME:TAG}}`, TAG being the call's secretTag, is replaced by the install's secret
// NAME in url, header values, body and the auth fields. Text carrying the tag anywhere else (a bare tag,
// a malformed placeholder, a header name, bodyBase64) is refused, and so is a NAME that is not a required
// secret of the install or whose value is shorter than 8 characters (too short to redact).
// `{{secret:NAME}}` without the tag is sent as written. In url a placeholder may stand in the path, query
// or fragment only (never the scheme, host, port or user info), and its value goes out percent-encoded as
// one component: every byte but A-Z a-z 0-9 - . _ ~ as %XX.
//
// Where a request may go: https only (http too on a private-network development stack); the URL's host
// must be an approved host of the install at its port (a host approved without a port: the scheme's
// default port); no user name or password in the URL; IPv6 literals never. The name is resolved by the
// host and refused if any of its addresses is loopback, private, link-local, shared, NAT64, 6to4 or
// otherwise not public; the connection then goes to an address that was checked.
//
// Redirects (301, 302, 303, 307, 308) are followed up to 5 times, each target checked like the first
// URL. 303, and 301/302 after POST, continue as GET without body. Once a redirect leaves the first
// origin, auth, authorization, cookie and every header a secret was filled into are no longer sent,
// and a redirect that would carry a body a secret was filled into to another origin is refused.
// Digest auth sends the request, answers the server's challenge (MD5 or SHA-256, qop auth or auth-int)
// and sends it again. Every request on the wire counts: 25 per call, digest's first try and redirects
// included. Each request has timeoutMs, and none runs past the call's deadline.
//
// Answer:
//   { "status": 200, "headers": { "content-type": "…", … }, "body": "…" }
//       headers lower-cased, repeated headers joined with ", "; body is the response as UTF-8 text;
//   { "status": 200, "headers": { … }, "bodyBase64": "…" }
//       instead of body when the response is not valid UTF-8;
//   { "error": "…", "network": "not_sent" }   no connection was made: the vendor cannot have the request;
//   { "error": "…", "network": "unknown" }    sending failed after a connection was open: it may have arrived;
//   { "error": "…", "refused": true }         the host refused: invalid request, host or address not
//       allowed, tag misuse, unknown secret, request limit, deadline passed, too many redirects, or a
//       response over 8 MiB (only this last one comes after the vendor received the request).
//
// Values derived from secrets are redacted from the call's answer: a Basic credential as [auth:basic],
// a Digest Authorization as [auth:digest], a Bearer header as [auth:bearer]. What the vendor answers
// (header values, the body, error texts) reaches the module already redacted of every secret, value
// derived from one and the tag, in any spelling (redaction.ts); cached values stay as they are.
import { PLATFORM_VERSION } from '../../version.ts';
import type { Redactor } from '../redaction.ts';
import {
  type EgressContext,
  type HttpAnswer,
  type HttpResponseAnswer,
  MAX_REDIRECTS,
  type Refusal,
  refused,
} from './context.ts';
import { chooseDigestChallenge, digestAuthorization, parseChallenges } from './digest.ts';
import { type Exchange, sendOnce } from './exchange.ts';
import { checkTarget } from './hosts.ts';
import { bytesCarryTag, fillPlaceholders, fillUrl } from './placeholders.ts';
import { type AuthSpec, type HttpRequestSpec, parseHttpRequest } from './request.ts';

export type { EgressContext, HttpAnswer, LookupAll } from './context.ts';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers that describe a body, dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location'];
/** undici's own rule for a header value it will send. */
const SENDABLE_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const USER_AGENT = `apps-platform/${PLATFORM_VERSION}`;

interface Prepared {
  url: string;
  method: string;
  headers: Map<string, string>;
  /** Headers a secret was filled into: never sent beyond the first origin. */
  secretHeaders: Set<string>;
  body: Uint8Array | null;
  /** Whether a secret was filled into the body: it then never follows a redirect to another origin. */
  bodyFromSecret: boolean;
  auth: AuthSpec | null;
  /** Whether a secret was filled into auth, so that what derives from it is redacted. */
  authFromSecret: boolean;
  timeoutMs: number;
}

/** Fills placeholders everywhere they may be and refuses the tag everywhere else. */
function prepare(spec: HttpRequestSpec, ctx: EgressContext): Prepared | Refusal {
  const url = fillUrl(spec.url, ctx);
  if (!url.ok) return refused(url.error);

  const headers = new Map<string, string>();
  const secretHeaders = new Set<string>();
  for (const [name, value] of spec.headers) {
    if (ctx.secretTag !== '' && name.includes(ctx.secretTag.toLowerCase())) {
      return refused("a header name carries the call's secret tag");
    }
    const filled = fillPlaceholders(value, `header ${name}`, ctx);
    if (!filled.ok) return refused(filled.error);
    if (!SENDABLE_VALUE.test(filled.text)) {
      return refused(`header ${name} holds a character that cannot be sent`);
    }
    if (filled.filled > 0) secretHeaders.add(name);
    headers.set(name, filled.text);
  }

  let body: Uint8Array | null = null;
  let bodyFromSecret = false;
  if (spec.body && 'text' in spec.body) {
    const filled = fillPlaceholders(spec.body.text, 'body', ctx);
    if (!filled.ok) return refused(filled.error);
    body = Buffer.from(filled.text, 'utf8');
    bodyFromSecret = filled.filled > 0;
  } else if (spec.body) {
    if (bytesCarryTag(spec.body.bytes, ctx.secretTag)) {
      return refused("bodyBase64 carries the call's secret tag (placeholders are filled only in body)");
    }
    body = spec.body.bytes;
  }

  let auth = spec.auth;
  let authFromSecret = false;
  if (auth) {
    const fill = (text: string, field: string) => {
      const filled = fillPlaceholders(text, `auth.${field}`, ctx);
      if (filled.ok && filled.filled > 0) authFromSecret = true;
      return filled;
    };
    if (auth.type === 'bearer') {
      const token = fill(auth.token, 'token');
      if (!token.ok) return refused(token.error);
      if (!SENDABLE_VALUE.test(token.text)) {
        return refused('auth.token holds a character that cannot be sent');
      }
      auth = { type: 'bearer', token: token.text };
    } else {
      const username = fill(auth.username, 'username');
      if (!username.ok) return refused(username.error);
      // Checked once filled: a secret placeholder itself holds colons, the secret it names may not.
      if (auth.type === 'basic' && username.text.includes(':'))
        return refused('auth.username must not contain ":"');
      const password = fill(auth.password, 'password');
      if (!password.ok) return refused(password.error);
      auth = { type: auth.type, username: username.text, password: password.text };
    }
  }
  return {
    url: url.text,
    method: spec.method,
    headers,
    secretHeaders,
    body,
    bodyFromSecret,
    auth,
    authFromSecret,
    timeoutMs: spec.timeoutMs,
  };
}

/** The Authorization value sent up front (Basic, Bearer), redacted when it derives from a secret. */
function upfrontAuthorization(prepared: Prepared, ctx: EgressContext): string | null {
  const auth = prepared.auth;
  if (!auth || auth.type === 'digest') return null;
  if (auth.type === 'bearer') {
    const header = `Bearer ${auth.token}`;
    if (prepared.authFromSecret) ctx.redactor.derived('bearer', header);
    return header;
  }
  const credential = Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64');
  const header = `Basic ${credential}`;
  if (prepared.authFromSecret) {
    ctx.redactor.derived('basic', header);
    ctx.redactor.derived('basic', credential);
  }
  return header;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The exchange as the module reads it, redacted of every secret, derived value and the tag: a vendor that
 * echoes what it was sent cannot hand a secret to the module, whose own cuts, escapes and encodings of
 * the text the host could not follow. A body that is not UTF-8 is redacted byte for byte.
 */
function toAnswer(exchange: Exchange, redactor: Redactor): HttpResponseAnswer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(exchange.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = redactor.applySecrets(Array.isArray(value) ? value.join(', ') : value);
  }
  try {
    return { status: exchange.status, headers, body: redactor.applySecrets(decoder.decode(exchange.body)) };
  } catch {
    const body = redactor.applySecretsToBytes(exchange.body);
    return { status: exchange.status, headers, bodyBase64: body.toString('base64') };
  }
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function perform(request: unknown, ctx: EgressContext): Promise<HttpAnswer> {
  const parsed = parseHttpRequest(request);
  if (!parsed.ok) return refused(parsed.error);
  const prepared = prepare(parsed.request, ctx);
  if ('refused' in prepared) return prepared;
  let target = checkTarget(prepared.url, ctx.approvedHosts, ctx.allowPrivateNetworks);
  if (!target.ok) return refused(target.reason);

  const firstOrigin = target.url.origin;
  const authorization = upfrontAuthorization(prepared, ctx);
  const headers = prepared.headers;
  let method = prepared.method;
  let body = prepared.body;
  let credentials = true;

  for (let redirects = 0; ; redirects++) {
    const url = target.url;
    if (credentials && url.origin !== firstOrigin) {
      credentials = false;
      for (const name of ['authorization', 'cookie', ...prepared.secretHeaders]) headers.delete(name);
    }
    const outHeaders: Record<string, string> = Object.fromEntries(headers);
    if (!headers.has('user-agent')) outHeaders['user-agent'] = USER_AGENT;
    if (credentials && authorization) outHeaders.authorization = authorization;
    const out = { url, method, headers: outHeaders, body, timeoutMs: prepared.timeoutMs };

    let sent = await sendOnce(out, ctx);
    if (!('status' in sent)) return sent;
    if (credentials && prepared.auth?.type === 'digest' && sent.status === 401) {
      const challenge = chooseDigestChallenge(parseChallenges(sent.headers['www-authenticate']));
      if (challenge) {
        const answer = digestAuthorization({
          challenge,
          method,
          uri: `${url.pathname}${url.search}`,
          username: prepared.auth.username,
          password: prepared.auth.password,
          body: body ?? undefined,
        });
        if (prepared.authFromSecret) {
          ctx.redactor.derived('digest', answer.header);
          ctx.redactor.derived('digest', answer.response);
        }
        sent = await sendOnce({ ...out, headers: { ...outHeaders, authorization: answer.header } }, ctx);
        if (!('status' in sent)) return sent;
      }
    }

    const location = firstValue(sent.headers.location);
    if (!REDIRECT_STATUSES.has(sent.status) || location === undefined) return toAnswer(sent, ctx.redactor);
    if (redirects === MAX_REDIRECTS) return refused(`more than ${MAX_REDIRECTS} redirects`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return refused('a redirect named no valid URL');
    }
    target = checkTarget(next, ctx.approvedHosts, ctx.allowPrivateNetworks);
    if (!target.ok) return refused(`redirect refused: ${target.reason}`);
    const toGet =
      sent.status === 303 ? method !== 'GET' && method !== 'HEAD' : sent.status <= 302 && method === 'POST';
    if (toGet) {
      method = 'GET';
      body = null;
      for (const name of BODY_HEADERS) headers.delete(name);
    }
    if (body !== null && prepared.bodyFromSecret && target.url.origin !== firstOrigin) {
      return refused('redirect refused: the body carries a secret and would leave the first origin');
    }
  }
}

/**
 * Performs one http_request of a module: the request is the JSON it sent, unchecked. Never throws:
 * every outcome is an answer for the module.
 */
export async function performHttpRequest(request: unknown, ctx: EgressContext): Promise<HttpAnswer> {
  let answer: HttpAnswer;
  try {
    answer = await perform(request, ctx);
  } catch (err) {
    // A fault of the host itself: whether anything went out is not known.
    answer = {
      error: `http_request failed: ${err instanceof Error ? err.message : String(err)}`,
      network: 'unknown',
    };
  }
  // A refusal or failure may quote what a vendor sent (a redirect's host, a resolver's message).
  if ('error' in answer) answer.error = ctx.redactor.applySecrets(answer.error);
  return answer;
}
