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

/** The sandbox's egress settings, the same for every call. */
export interface EgressSettings {
  agents: AgentPool;
  allowPrivateNetworks: boolean;
  /** The outside world's resolver; tests hand their own. */
  lookup?: LookupAll;
}

/** What a call brings to the requests it makes (the host functions' CallState holds it). */
export interface CallEgress {
  tenantId: string;
  secretTag: string;
  secrets: ReadonlyMap<string, string>;
  hosts: readonly string[];
  redactor: Redactor;
  deadline: number;
  signal: AbortSignal;
}

/**
 * The one way a call's request is sent (http_request and ai alike): to the call's approved hosts, on
 * private networks only where the deployment allows them, redacted with the call's redactor, on the
 * tenant's own connections, within the call's deadline. `usage` counts the requests and `maxRequests`
 * bounds them (ai counts the model vendor's apart from the call's own).
 */
export const callEgressContext = (
  settings: EgressSettings,
  call: CallEgress,
  usage: EgressUsage,
  maxRequests?: number,
): EgressContext => ({
  tenantId: call.tenantId,
  secretTag: call.secretTag,
  secrets: call.secrets,
  approvedHosts: call.hosts,
  allowPrivateNetworks: settings.allowPrivateNetworks,
  redactor: call.redactor,
  usage,
  maxRequests,
  deadline: call.deadline,
  signal: call.signal,
  agents: settings.agents,
  lookup: settings.lookup,
});

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
