import { HOST_FUNCTIONS, type HostFunctionName } from '../../module/index.ts';
import { type HostRefusal, refuse, THREAD_HOST_FUNCTIONS, type ThreadHostFunctionName } from './refuse.ts';

export { type HostRefusal, refuse } from './refuse.ts';

/** The host functions the main thread serves (the others run on the call's sandbox thread). */
export type MainHostFunctionName = Exclude<HostFunctionName, ThreadHostFunctionName>;

/** One call's implementation of the main thread's host functions: a parsed request in, JSON out. */
export type HostBinding = Record<MainHostFunctionName, (request: unknown) => Promise<unknown> | unknown>;

const onThread: ReadonlySet<string> = new Set(THREAD_HOST_FUNCTIONS);
export const MAIN_HOST_FUNCTIONS = HOST_FUNCTIONS.filter(
  (name): name is MainHostFunctionName => !onThread.has(name),
);

/** What every host function answers where it may not act: start code, a warm instance, the manifest. */
export const REFUSALS: Record<HostFunctionName, HostRefusal> = Object.fromEntries(
  HOST_FUNCTIONS.map((name) => [name, refuse(`${name} is not available here`)]),
) as Record<HostFunctionName, HostRefusal>;

/** The binding of an instance nobody has claimed: every host function refuses. */
export const REFUSING_BINDING: HostBinding = Object.fromEntries(
  MAIN_HOST_FUNCTIONS.map((name) => [name, () => REFUSALS[name]]),
) as unknown as HostBinding;
