// Whether a step's or rule's fallback install takes the call (docs/calls.md "Fallbacks"). Pure: the
// clock is an argument. The fallback takes the call when the named install refused it with an open
// circuit, or when the vendor's outage outlasted the retries: the last attempt was an outage (an error
// the app called retryable, or a timeout, that the step's time did not cut short) and, for a timeout,
// the action is idempotent (its requests may have gone out). Never after a platform refusal, a final
// error, a trap, or an unreachable or failing runner; and only while an attempt can still end in time.
import type { CircuitCount } from '../installs/index.ts';
import { type AttemptEnd, MIN_ATTEMPT_MS } from './retry-rules.ts';

/** Why the fallback took the call: the service.app.fallback.count metric's reason label. */
export type FallbackReason = 'circuit_open' | 'outage';

export interface FallbackInput {
  /** How the named install's last attempt ended, and how it counted for the circuit. */
  end: AttemptEnd;
  counted: CircuitCount | null;
  idempotent: boolean;
  now: number;
  /** Epoch ms of the step's (or the rule evaluation's) deadline. */
  deadline: number;
}

export function fallbackReason(input: FallbackInput): FallbackReason | null {
  if (input.now + MIN_ATTEMPT_MS > input.deadline) return null;
  const { end } = input;
  if (end.kind === 'refused') return end.code === 'app_circuit_open' ? 'circuit_open' : null;
  if (input.counted !== 'outage') return null;
  if (end.result.status === 'timeout' && !input.idempotent) return null;
  return 'outage';
}
