// The host functions of one call, bound to its state.

import { cache } from './cache.ts';
import type { CallState } from './call-state.ts';
import { documentRead } from './documents.ts';
import { hmac, hmacVerify } from './hmac.ts';
import { log } from './log.ts';
import type { HostBinding } from './refusal.ts';

export interface BindingDeps {
  httpRequest: (state: CallState, request: unknown) => Promise<unknown>;
  ai: (state: CallState, request: unknown) => Promise<unknown>;
}

export function bindHostFunctions(state: CallState, deps: BindingDeps): HostBinding {
  return {
    http_request: (request) => deps.httpRequest(state, request),
    hmac: (request) => hmac(state, request),
    hmac_verify: (request) => hmacVerify(state, request),
    document_read: (request) => documentRead(state, request),
    log: (request) => log(state, request),
    cache: (request) => cache(state, request),
    ai: (request) => deps.ai(state, request),
  };
}
