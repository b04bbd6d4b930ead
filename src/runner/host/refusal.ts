import { HOST_FUNCTIONS, type HostFunctionName } from '../../module/index.ts';

/** What every host function answers when it may not act (start code, the manifest export, limits). */
export interface HostRefusal {
  error: string;
  refused: true;
}

export const refuse = (error: string): HostRefusal => ({ error, refused: true });

/** One call's implementation of the host functions: JSON in, JSON out. */
export type HostBinding = Record<HostFunctionName, (request: unknown) => Promise<unknown> | unknown>;

/** The binding of an instance nobody has claimed: every host function refuses. */
export const REFUSING_BINDING: HostBinding = Object.fromEntries(
  HOST_FUNCTIONS.map((name) => [name, () => refuse(`${name} is not available here`)]),
) as unknown as HostBinding;
