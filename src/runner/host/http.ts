// http_request bound to one call: the egress core with the call's tag, secrets, hosts, usage and deadline.

import { callEgressContext, type EgressSettings } from '../egress/context.ts';
import { performHttpRequest } from '../egress/http.ts';
import type { CallState } from './call-state.ts';

export function httpRequestFor(settings: EgressSettings) {
  return (state: CallState, request: unknown) =>
    performHttpRequest(request, callEgressContext(settings, state, state.usage));
}
