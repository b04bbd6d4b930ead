// The answer shapes compiled by Ajv: in process (tests, the SDK harness), and as standalone code for the
// sandbox thread's bundle (threads/bundle.ts), which so checks answers without loading Ajv (about
// 100 ms of CPU for every thread started).
import { Ajv2020 } from 'ajv/dist/2020.js';
import standalone from 'ajv/dist/standalone/index.js';
import type { AnswerValidators } from './answer.ts';
import { ANSWERS } from './answer-shapes.ts';

const compile = () => {
  const ajv = new Ajv2020({ allErrors: false, strict: false, code: { source: true, esm: true } });
  for (const [name, schema] of Object.entries(ANSWERS)) ajv.addSchema(schema, name);
  return ajv;
};

let compiled: AnswerValidators | null = null;

export function answerValidators(): AnswerValidators {
  if (!compiled) {
    const ajv = compile();
    const of = (name: keyof AnswerValidators) => {
      const validate = ajv.getSchema(name);
      if (!validate) throw new Error(`no answer shape ${name}`);
      return (answer: unknown) => validate(answer) as boolean;
    };
    compiled = { invoke: of('invoke'), handle_webhook: of('handle_webhook'), handoff: of('handoff') };
  }
  return compiled;
}

/** An ES module exporting one validating function per export name (Ajv's standalone code). */
export function answerValidatorsSource(): string {
  const ajv = compile();
  return standalone.default(ajv, { invoke: 'invoke', handle_webhook: 'handle_webhook', handoff: 'handoff' });
}
