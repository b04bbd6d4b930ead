// One call as its sandbox thread sees it: everything done to what the module wrote is done here, on the
// module's own thread (at its priority, inside its deadline and its thread's heap), never on the main
// thread that serves every tenant. Here the module's host requests are parsed and bounded, log, hmac and
// hmac_verify are answered, and the answer, a trap's text and the log lines are read, redacted and cut;
// the main thread receives bounded values and text it does not parse (docs/runner.md).
//
// Bundled into the thread's code (bundle.ts) with what it imports: keep those imports light.
import { depthExcess } from '../../http/json-depth.ts';
import { storableText } from '../../http/unstorable-text.ts';
import { type AnswerValidators, readAnswer, tooLarge } from '../answer.ts';
import type { ExportName } from '../answer-shapes.ts';
import { RunnerFailure } from '../errors.ts';
import type { LogLine, ThreadCallState } from '../host/call-state.ts';
import { hmac, hmacVerify } from '../host/hmac.ts';
import { log } from '../host/log.ts';
import { refuse, type ThreadHostFunctionName } from '../host/refuse.ts';
import { type RedactionEntry, Redactor } from '../redaction.ts';

/** What the thread is told of a call besides its module and input. */
export interface CallReading {
  /** Whose answer shape the output must have ('manifest': any JSON, read by the inspection). */
  answer: ExportName;
  secretTag: string;
  /** The call's secrets, NAME → value: hmac keys name them. */
  secrets: [string, string][];
  /** What the thread's redactor starts with: the tag, the secrets, the cached values. */
  redactions: RedactionEntry[];
}

/** The reading of a call that holds no secret: an upload's manifest, a benchmark's bare call. */
export const readingWithoutSecrets = (answer: ExportName): CallReading => ({
  answer,
  secretTag: '',
  secrets: [],
  redactions: [],
});

/** How deep a host request may nest; the deepest the host functions read is 3 (ai's messages). */
export const MAX_REQUEST_DEPTH = 8;
/** Values (objects, arrays, members, items) a host request may hold: 100 headers or messages and more. */
export const MAX_REQUEST_VALUES = 1_000;
/** What a trap's text is cut to once redacted. */
export const MAX_MESSAGE_CHARS = 2_000;

/** An export's output as the kernel gives it: its bytes, or only its size past the largest answer. */
export type OutputBytes = Uint8Array | { tooLargeBytes: number };

/** A host request read: answered on this thread, or to be sent to the main thread as a bounded value. */
export type Served = { answer: unknown } | { forward: unknown; redactions: RedactionEntry[] };

/** The result of the export, as the main thread receives it: bounded text and values only. */
export type ReadOutcome =
  | { outcome: 'answered'; answer: string; logs: LogLine[] }
  | { outcome: 'bad_output'; message: string; logs: LogLine[] }
  | { outcome: 'trapped' | 'start_failed'; message: string };

const LOCAL: Record<ThreadHostFunctionName, (state: ThreadCallState, request: unknown) => unknown> = {
  log,
  hmac,
  hmac_verify: hmacVerify,
};

export class ThreadCall {
  readonly #reading: CallReading;
  readonly #validators: AnswerValidators;
  readonly #state: ThreadCallState;

  /** logLines: the call's count of log lines, kept where the main thread reads it even past a deadline. */
  constructor(reading: CallReading, validators: AnswerValidators, logLines: { logLines: number }) {
    const redactor = new Redactor();
    redactor.receive(reading.redactions);
    this.#reading = reading;
    this.#validators = validators;
    this.#state = {
      secretTag: reading.secretTag,
      secrets: new Map(reading.secrets),
      redactor,
      logs: [],
      usage: logLines,
    };
  }

  /** One host request, its JSON text within its function's bound already. */
  serve(name: string, text: string): Served {
    const request = parseRequest(name, text);
    if ('refused' in request) return { answer: request.refused };
    const local = Object.hasOwn(LOCAL, name) ? LOCAL[name as ThreadHostFunctionName] : undefined;
    if (local) return { answer: local(this.#state, request.value) };
    return { forward: request.value, redactions: this.#state.redactor.takeNew() };
  }

  /** Values the main thread registered while it served a request (a derived credential, a cached value). */
  received(redactions: readonly RedactionEntry[]): void {
    this.#state.redactor.receive(redactions);
  }

  /** The export's output read as its answer: JSON text, redacted and checked. */
  answered(output: OutputBytes): ReadOutcome {
    if (!(output instanceof Uint8Array))
      return { outcome: 'bad_output', message: tooLarge(this.#reading.answer).message, logs: this.#logs() };
    try {
      const answer = readAnswer(this.#reading.answer, output, this.#state.redactor, this.#validators);
      return { outcome: 'answered', answer: JSON.stringify(answer), logs: this.#logs() };
    } catch (error) {
      if (!(error instanceof RunnerFailure)) throw error;
      return { outcome: 'bad_output', message: error.message, logs: this.#logs() };
    }
  }

  /**
   * A trap's or a failed start's text: redacted, then cut (cut first, a secret across the cut would keep
   * its first characters, which nothing could redact any more), made storable.
   */
  failed(outcome: 'trapped' | 'start_failed', message: string): ReadOutcome {
    const redacted = this.#state.redactor.apply(message).slice(0, MAX_MESSAGE_CHARS);
    return { outcome, message: storableText(redacted) };
  }

  /** Again at the end: a value registered after a line was logged (a cached value set later) goes too. */
  #logs(): LogLine[] {
    const { redactor, logs } = this.#state;
    return logs.map((line) => ({ ...line, message: storableText(redactor.apply(line.message)) }));
  }
}

/** A request parsed and bounded, or the refusal the module reads. */
export function parseRequest(
  name: string,
  text: string,
): { value: unknown } | { refused: ReturnType<typeof refuse> } {
  // Checked before parsing: JSON.parse recurses, and nesting is what makes a clone costly.
  if (depthExcess(text, MAX_REQUEST_DEPTH) !== null)
    return { refused: refuse(`${name}: the request nests deeper than ${MAX_REQUEST_DEPTH} levels`) };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { refused: refuse(`${name}: the request is not JSON`) };
  }
  if (countValues(value, MAX_REQUEST_VALUES) > MAX_REQUEST_VALUES)
    return { refused: refuse(`${name}: the request holds more than ${MAX_REQUEST_VALUES} values`) };
  return { value };
}

/** Values in a parsed JSON value (itself, its items and members), counted up to just past `max`. Pure. */
export function countValues(root: unknown, max: number): number {
  let count = 0;
  const pending: unknown[] = [root];
  while (pending.length > 0 && count <= max) {
    const value = pending.pop();
    count += 1;
    if (Array.isArray(value)) pending.push(...value.slice(0, max + 1 - count));
    else if (value !== null && typeof value === 'object')
      pending.push(...Object.values(value).slice(0, max + 1 - count));
  }
  return count;
}
