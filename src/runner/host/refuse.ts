// A host function's refusal: what the module reads when a request may not act. Its own file, without
// imports, so the sandbox thread's bundle (threads/bundle.ts) takes nothing else with it.

/** What every host function answers when it may not act (start code, the manifest export, limits). */
export interface HostRefusal {
  error: string;
  refused: true;
}

export const refuse = (error: string): HostRefusal => ({ error, refused: true });

/**
 * The host functions run on the call's sandbox thread (threads/thread-call.ts): they work on what the
 * module wrote alone. The others reach vendors, the api or the call's cache from the main thread.
 */
export const THREAD_HOST_FUNCTIONS = ['log', 'hmac', 'hmac_verify'] as const;
export type ThreadHostFunctionName = (typeof THREAD_HOST_FUNCTIONS)[number];
