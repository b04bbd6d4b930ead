// The run context is bounded (docs/runs.md "Bounds"): one step's output at 256 KiB and the whole context at
// 1 MiB, both as serialized JSON (UTF-8 bytes). Past either the step fails with `output_too_large` and the
// context is not written: a run's row stays small enough to read whole on every GET and every step.
import type { RunError } from './model.ts';

/** One step's output: a quarter of the context, so four of the largest outputs fill it. */
export const STEP_OUTPUT_LIMIT_BYTES = 256 * 1024;
/** The whole context: the api's body limit, so no context outgrows what one request may start a run with. */
export const CONTEXT_LIMIT_BYTES = 1024 * 1024;

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');

export type Placed = { ok: true; context: Record<string, unknown> } | { ok: false; error: RunError };

/** The context with `output` at `key`, or the step's error when the output or the context is too large. */
export function placeOutput(context: Record<string, unknown>, key: string, output: unknown): Placed {
  const outputBytes = jsonBytes(output);
  if (outputBytes > STEP_OUTPUT_LIMIT_BYTES) {
    return tooLarge(`the step's output is ${outputBytes} bytes of JSON`, {
      bound: 'step_output',
      bytes: outputBytes,
      limitBytes: STEP_OUTPUT_LIMIT_BYTES,
    });
  }
  const next = { ...context, [key]: output };
  const contextBytes = jsonBytes(next);
  if (contextBytes > CONTEXT_LIMIT_BYTES) {
    return tooLarge(`with the step's output the run context would be ${contextBytes} bytes of JSON`, {
      bound: 'context',
      bytes: contextBytes,
      limitBytes: CONTEXT_LIMIT_BYTES,
    });
  }
  return { ok: true, context: next };
}

const tooLarge = (what: string, details: Record<string, unknown>): Placed => ({
  ok: false,
  error: {
    code: 'output_too_large',
    message: `${what}, over the limit of ${details.limitBytes} bytes`,
    details,
  },
});
