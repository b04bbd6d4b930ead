// The main thread's host functions of one call, bound to its state (log, hmac and hmac_verify run on
// the call's sandbox thread: threads/thread-call.ts).

import { cache } from './cache.ts';
import type { CallState } from './call-state.ts';
import { documentRead } from './documents.ts';
import type { HostBinding } from './refusal.ts';

export interface BindingDeps {
  httpRequest: (state: CallState, request: unknown) => Promise<unknown>;
  ai: (state: CallState, request: unknown) => Promise<unknown>;
}

export function bindHostFunctions(state: CallState, deps: BindingDeps): HostBinding {
  return {
    http_request: (request) => deps.httpRequest(state, request),
    document_read: (request) => documentRead(state, request),
    cache: (request) => cache(state, request),
    ai: (request) => deps.ai(state, request),
  };
}
