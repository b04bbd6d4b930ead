// One delivery on the wire (docs/outbound-webhooks.md): POST the body with its headers exactly, signed now,
// to a checked address (src/net/checked-connector.ts: the name is resolved and judged at every new
// connection), within 10 seconds, redirects never followed. Never throws: the answer says what happened
// in words that never name the URL. Each endpoint has its own connections (endpoint-agents.ts).
import { Agent } from 'undici';
import { AddressRefused, checkedConnector, type LookupAll } from '../../net/checked-connector.ts';
import { EndpointAgents } from './endpoint-agents.ts';
import { EXCERPT_BYTES, responseExcerpt } from './response-excerpt-rules.ts';
import { signatureHeader } from './signing.ts';

export const DELIVERY_TIMEOUT_MS = 10_000;
/** The most of an answer read (its first KiB kept) before the connection is given up rather than reused. */
const ANSWER_READ_LIMIT = 64 * 1024;
/** Keep-alive connections per endpoint: at least the sends one endpoint may have in flight. */
const CONNECTIONS_PER_ENDPOINT = 16;

export interface OutgoingDelivery {
  url: string;
  /** Whose connections carry it: each endpoint has its own. */
  endpointId: string;
  eventType: string;
  deliveryId: string;
  /** The raw JSON body, signed as these exact bytes. */
  body: string;
  /** The secrets in force: one v1 each. */
  secrets: readonly string[];
}

export interface PostResult {
  delivered: boolean;
  responseCode: number | null;
  latencyMs: number;
  error?: string;
  /** The first KiB of the answer's body as text (response-excerpt-rules.ts); null when none came or it was empty. */
  responseBody: string | null;
}

export interface PosterOptions {
  allowPrivateNetworks: boolean;
  lookup?: LookupAll;
  /** Milliseconds since the epoch; the signature's t. */
  now?: () => number;
  timeoutMs?: number;
  /** Keep-alive connections per endpoint (16 unless told). */
  connectionsPerEndpoint?: number;
}

/** Why a URL is not sent to now (its scheme), or null. */
function schemeRefusal(url: URL, allowPrivateNetworks: boolean): string | null {
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && allowPrivateNetworks) return null;
  return 'the endpoint URL must use https';
}

/**
 * Reads an answer's body (so the connection can serve the next delivery), keeping its first KiB; past
 * ANSWER_READ_LIMIT the rest is left and the connection closed. A body cut short keeps what arrived.
 */
async function excerptOf(body: AsyncIterable<Buffer>): Promise<string | null> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.length;
      if (keptBytes < EXCERPT_BYTES) {
        const part = chunk.subarray(0, EXCERPT_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      if (read >= ANSWER_READ_LIMIT) break;
    }
  } catch {
    // Reset or timed out mid-body: the status already came; keep what did.
  }
  return responseExcerpt(Buffer.concat(kept));
}

function describe(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `no answer within ${timeoutMs / 1000} s`;
  if (err instanceof AddressRefused) return `refused: ${err.message}`;
  const cause = (err as { cause?: unknown })?.cause ?? err;
  const code = (cause as { code?: unknown })?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (typeof code === 'string' && code.startsWith('ERR_TLS')) return `TLS failed (${code})`;
  if (cause instanceof AddressRefused) return `refused: ${cause.message}`;
  return typeof code === 'string' ? `request failed (${code})` : 'request failed';
}

export class DeliveryPoster {
  readonly #agents: EndpointAgents;
  readonly #options: PosterOptions;

  constructor(options: PosterOptions) {
    this.#options = options;
    const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    const connect = checkedConnector({
      allowPrivateNetworks: options.allowPrivateNetworks,
      ...(options.lookup ? { lookup: options.lookup } : {}),
      connect: { timeout: timeoutMs },
    });
    this.#agents = new EndpointAgents(
      () =>
        new Agent({
          connections: options.connectionsPerEndpoint ?? CONNECTIONS_PER_ENDPOINT,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          connect,
        }),
    );
  }

  async post(delivery: OutgoingDelivery): Promise<PostResult> {
    const timeoutMs = this.#options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(delivery.url);
    } catch {
      return {
        delivered: false,
        responseCode: null,
        latencyMs: 0,
        error: 'the endpoint URL is not valid',
        responseBody: null,
      };
    }
    const refusal = schemeRefusal(url, this.#options.allowPrivateNetworks);
    if (refusal)
      return { delivered: false, responseCode: null, latencyMs: 0, error: refusal, responseBody: null };
    const t = Math.floor((this.#options.now?.() ?? Date.now()) / 1000);
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      // The pool counts the endpoint busy until the answer's body is read.
      const answer = await this.#agents.with(delivery.endpointId, async (agent) => {
        const response = await agent.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Service-Webhooks/1',
            'x-service-event': delivery.eventType,
            'x-service-delivery': delivery.deliveryId,
            'x-service-signature': signatureHeader(t, delivery.body, delivery.secrets),
          },
          body: delivery.body,
          signal,
        });
        return { code: response.statusCode, responseBody: await excerptOf(response.body) };
      });
      const { code, responseBody } = answer;
      if (code >= 200 && code < 300) {
        return { delivered: true, responseCode: code, latencyMs: latency(), responseBody };
      }
      const error =
        code >= 300 && code < 400 ? `redirect ${code} not followed` : `the endpoint answered ${code}`;
      return { delivered: false, responseCode: code, latencyMs: latency(), error, responseBody };
    } catch (err) {
      return {
        delivered: false,
        responseCode: null,
        latencyMs: latency(),
        error: describe(err, signal.aborted, timeoutMs),
        responseBody: null,
      };
    }
  }

  async close(): Promise<void> {
    await this.#agents.close();
  }
}
