// One HTTP request on the wire: within the call's request budget and deadline, the name resolved here
// and every address checked, the connection made to a checked address only (pool.ts), the response read
// up to its cap. Whether a failure may have reached the vendor follows from whether a connection was
// ever open for the request, not from error codes.
import { addressRefusal, parseIPv4 } from '../../net/addresses.ts';
import { systemLookup } from '../../net/checked-connector.ts';
import {
  DEFAULT_MAX_REQUESTS,
  DEFAULT_MAX_RESPONSE_BYTES,
  type EgressContext,
  type LookupAll,
  type NetworkFailure,
  type Refusal,
  refused,
} from './context.ts';
import type { CheckedAddress, Lease } from './pool.ts';

export interface Outgoing {
  /** Checked against the approved hosts already, without fragment. */
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Uint8Array | null;
  timeoutMs: number;
}

export interface Exchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export type Sent = Exchange | NetworkFailure | Refusal;

class Expired extends Error {}

/** Resolves the URL's host: an IPv4 literal is its own address; a name goes to the resolver. */
async function resolve(hostname: string, lookup: LookupAll, signal: AbortSignal): Promise<CheckedAddress[]> {
  if (parseIPv4(hostname) !== null) return [{ address: hostname, family: 4 }];
  const expired = new Promise<never>((_resolve, reject) => {
    if (signal.aborted) reject(new Expired());
    signal.addEventListener('abort', () => reject(new Expired()), { once: true });
  });
  expired.catch(() => {});
  return [...(await Promise.race([lookup(hostname), expired]))];
}

/** The whole body, or null once it passes `cap` bytes (the connection is then abandoned). */
async function readCapped(
  headers: Exchange['headers'],
  body: AsyncIterable<Buffer> & { destroy(): void; on(event: 'error', listener: () => void): unknown },
  cap: number,
): Promise<Buffer | null> {
  // Abandoning the body makes undici emit an abort error that nobody else is left to hear.
  const abandon = () => {
    body.on('error', () => {});
    body.destroy();
  };
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > cap) {
    abandon();
    return null;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > cap) {
      abandon();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/** Sends one request and reads its whole answer; never throws. */
const PRIVATE_NETWORK_HINT =
  ' (a development stack may reach it with APP_RUNNER_ALLOW_PRIVATE_NETWORKS=true)';

export async function sendOnce(out: Outgoing, ctx: EgressContext): Promise<Sent> {
  const limit = ctx.maxRequests ?? DEFAULT_MAX_REQUESTS;
  if (ctx.usage.httpRequests >= limit)
    return refused(`at most ${limit} HTTP requests may be sent in one call`);
  const left = ctx.deadline === undefined ? Number.POSITIVE_INFINITY : ctx.deadline - Date.now();
  if (left <= 0 || ctx.signal?.aborted) return refused("the call's deadline has passed");
  const budget = Math.min(out.timeoutMs, left);
  const expiry = budget < out.timeoutMs ? "the call's deadline was reached" : `timed out after ${budget} ms`;

  const controller = new AbortController();
  // Where the call's deadline binds and the call has its end signal, that signal alone stops the request:
  // the runner's deadline (which ends the thread and answers timeout) is then the one clock, never raced
  // by a second timer handing the module an error a moment before its thread is ended.
  const timer =
    budget < out.timeoutMs && ctx.signal
      ? undefined
      : setTimeout(() => controller.abort(new Expired()), budget);
  const callEnded = () => controller.abort(new Expired());
  ctx.signal?.addEventListener('abort', callEnded, { once: true });
  const hostname = out.url.hostname;
  try {
    let addresses: CheckedAddress[];
    try {
      addresses = await resolve(hostname, ctx.lookup ?? systemLookup, controller.signal);
    } catch (err) {
      const why = err instanceof Expired ? expiry : describe(err);
      return { error: `could not resolve ${hostname}: ${why}`, network: 'not_sent' };
    }
    if (addresses.length === 0) return { error: `${hostname} has no address`, network: 'not_sent' };
    for (const { address } of addresses) {
      const kind = addressRefusal(address, ctx.allowPrivateNetworks);
      if (!kind) continue;
      // The setting's hint only where the setting would let the address through.
      const hint = addressRefusal(address, true) ? '' : PRIVATE_NETWORK_HINT;
      return refused(
        `host ${hostname} resolves to ${address}, a ${kind} address, which apps may not reach${hint}`,
      );
    }

    let lease: Lease;
    try {
      lease = ctx.agents.acquire(ctx.tenantId, out.url.origin, addresses);
    } catch (err) {
      return { error: describe(err), network: 'not_sent' };
    }
    ctx.usage.httpRequests += 1;
    try {
      const response = await lease.dispatcher.request({
        path: `${out.url.pathname}${out.url.search}`,
        method: out.method as 'GET',
        headers: out.headers,
        body: out.body,
        signal: controller.signal,
      });
      if (lease.reused()) ctx.usage.reusedConnections += 1;
      const cap = ctx.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      const body = await readCapped(response.headers, response.body, cap);
      if (body === null) return refused(`the response of ${hostname} is larger than ${cap} bytes`);
      return { status: response.statusCode, headers: response.headers, body };
    } catch (err) {
      const why = controller.signal.aborted ? expiry : describe(err);
      return {
        error: `request to ${hostname} failed: ${why}`,
        network: lease.mayHaveSent() ? 'unknown' : 'not_sent',
      };
    } finally {
      lease.release();
    }
  } finally {
    clearTimeout(timer);
    ctx.signal?.removeEventListener('abort', callEnded);
  }
}
