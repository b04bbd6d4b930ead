// http_request bound to one call: the egress core with the call's tag, secrets, hosts, usage and deadline.

import { type LookupAll, performHttpRequest } from '../egress/http.ts';
import type { AgentPool } from '../egress/pool.ts';
import type { CallState } from './call-state.ts';

export interface EgressSettings {
  agents: AgentPool;
  allowPrivateNetworks: boolean;
  /** The outside world's resolver; tests hand their own. */
  lookup?: LookupAll;
}

export function httpRequestFor(settings: EgressSettings) {
  return (state: CallState, request: unknown) =>
    performHttpRequest(request, {
      tenantId: state.tenantId,
      secretTag: state.secretTag,
      secrets: state.secrets,
      approvedHosts: state.hosts,
      allowPrivateNetworks: settings.allowPrivateNetworks,
      redactor: state.redactor,
      usage: state.usage,
      deadline: state.deadline,
      signal: state.signal,
      agents: settings.agents,
      lookup: settings.lookup,
    });
}
