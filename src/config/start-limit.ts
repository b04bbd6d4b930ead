/**
 * Module start code (instantiation, _initialize) before a call, and the manifest export at inspection,
 * may take at most this long (the spec's limit). APP_RUNNER_START_LIMIT_MS may only lower it.
 */
export const START_LIMIT_MS = 5_000;

/** "5 s", "0.5 s": the limit as the refusals name it. */
export const secondsText = (ms: number) => `${ms / 1000} s`;
