// What one call's http_request works with, and what it answers. The shapes are documented for app
// authors at the top of http.ts.

import type { LookupAll } from '../../net/checked-connector.ts';
import type { Redactor } from '../redaction.ts';
import type { AgentPool } from './pool.ts';

export const DEFAULT_MAX_REQUESTS = 25;
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
export const MAX_REDIRECTS = 5;

/** Resolves a name to all its addresses (the outside world; tests pass their own): the shared type. */
export type { LookupAll };

export interface EgressUsage {
  /** Requests handed to the network: redirects followed and digest's challenge round trip included. */
  httpRequests: number;
  /** Requests that went out on a connection an earlier request of the tenant left open. */
  reusedConnections: number;
}

export interface EgressContext {
  /** Connections are kept alive per tenant and never shared between tenants. */
  tenantId: string;
  secretTag: string;
  /** The install's required secrets, NAME → value. */
  secrets: ReadonlyMap<string, string>;
  approvedHosts: readonly string[];
  /** APP_RUNNER_ALLOW_PRIVATE_NETWORKS: http and private addresses (development only). */
  allowPrivateNetworks: boolean;
  redactor: Redactor;
  /** The call's running totals, updated in place. */
  usage: EgressUsage;
  /** Default 25 a call. */
  maxRequests?: number;
  /** Default 8 MiB. */
  maxResponseBytes?: number;
  /** Epoch milliseconds: no request runs past it. */
  deadline?: number;
  /** The call ended (its deadline passed while this request waited): the request stops. */
  signal?: AbortSignal;
  agents: AgentPool;
  /** Default: the system resolver (dns.lookup, all addresses). */
  lookup?: LookupAll;
}

export type HttpResponseAnswer =
  | { status: number; headers: Record<string, string>; body: string }
  | { status: number; headers: Record<string, string>; bodyBase64: string };

/** Sending failed: not_sent, no connection was made (the vendor cannot have it); unknown, it may have. */
export interface NetworkFailure {
  error: string;
  network: 'not_sent' | 'unknown';
}

/** The host refused the request by policy or limit. */
export interface Refusal {
  error: string;
  refused: true;
}

export type HttpAnswer = HttpResponseAnswer | NetworkFailure | Refusal;

export const refused = (error: string): Refusal => ({ error, refused: true });
