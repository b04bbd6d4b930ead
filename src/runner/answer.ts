// Reading an export's answer from the bytes the module wrote. It runs on the sandbox thread that ran the
// call (threads/thread-call.ts), so a module that answers hostile text spends its own thread's time
// and memory, never the runner's main thread's. Pure but for the redactor it is given.
import { depthExcess, depthMessage } from '../http/json-depth.ts';
import { mayHoldUnstorable, storableJson } from '../http/unstorable-text.ts';
import type { ExportName } from './answer-shapes.ts';
import { RunnerFailure } from './errors.ts';
import { MAX_NESTED_STRING_DEPTH, NestedTooDeep, type Redactor } from './redaction.ts';

export const MAX_ANSWER_BYTES = 1024 * 1024;

/** Whether a parsed answer is one of its export's shapes (answer-shapes.ts); the manifest has none here. */
export type AnswerValidators = Record<Exclude<ExportName, 'manifest'>, (answer: unknown) => boolean>;

/**
 * Reads an export's answer: at most 1 MiB, redacted before it is parsed and again once parsed (so no
 * secret, derived credential, cached value or tag survives into it in any spelling), JSON, and one of the
 * export's answer shapes. U+0000 and lone surrogates in its strings and names become U+FFFD here, the
 * one place every answer passes (unstorable-text.ts): records, run context, evaluation, test calls and
 * webhook events then all hold the same storable text.
 */
export function readAnswer(
  exportName: ExportName,
  output: Uint8Array,
  redactor: Redactor,
  validators: AnswerValidators,
): unknown {
  if (output.byteLength > MAX_ANSWER_BYTES) throw tooLarge(exportName);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(output);
  } catch {
    throw new RunnerFailure('bad_output', `the ${exportName} answer is not UTF-8 text`);
  }
  if (depthExcess(text) !== null)
    throw new RunnerFailure('bad_output', `the ${exportName} answer ${depthMessage()}`);
  let answer: unknown;
  try {
    answer = JSON.parse(redactor.apply(text));
  } catch {
    throw new RunnerFailure('bad_output', `the ${exportName} answer is not JSON`);
  }
  if (exportName === 'manifest') return answer;
  // Then what it means: strings written with other escapes, JSON nested in strings.
  try {
    answer = redactor.applyDeep(answer);
  } catch (error) {
    if (!(error instanceof NestedTooDeep)) throw error;
    throw new RunnerFailure(
      'bad_output',
      `the ${exportName} answer holds JSON in a string nested deeper than ${MAX_NESTED_STRING_DEPTH} levels`,
    );
  }
  if (mayHoldUnstorable(text)) answer = storableJson(answer);
  if (!validators[exportName](answer)) {
    throw new RunnerFailure('bad_output', `the ${exportName} answer does not match the module contract`);
  }
  return answer;
}

export const tooLarge = (exportName: ExportName) =>
  new RunnerFailure('bad_output', `the ${exportName} answer is larger than 1 MiB`);
