// The conformance setup `app test apps/ai-risk-summary` reads: a model double (started by the loader
// from the ai option) answering a valid risk note; the install's config names a real model API, whose
// requests the loader sends to the double through the real ai host function.
import type { ConformanceSetup } from '../../../packages/app-testing/src/index.ts';

export const MODEL_API_KEY = 'sk-model-test-9c41d2e7';

export const NOTE = {
  riskLevel: 'high',
  summary:
    'The subject is a politically exposed person with a sanctions match and unexplained cash deposits.',
  factors: [
    { factor: 'sanctions list match', weight: 0.9 },
    { factor: 'politically exposed person', weight: 0.6 },
    { factor: 'cash deposits without stated source', weight: 0.45 },
  ],
  recommendedAction: 'decline',
};

export const SUBJECT = {
  name: 'Ivan Petrov',
  birthDate: '1971-03-02',
  nationality: 'RU',
  screening: { hit: true, matches: [{ caption: 'Ivan Petrov', score: 0.91, datasets: ['eu_fsf'] }] },
  pep: true,
  transactions: [{ type: 'cash_deposit', amount: 48000, currency: 'EUR' }],
};

export default function setup(): ConformanceSetup {
  return {
    config: { provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
    secrets: { MODEL_API_KEY },
    ai: { answer: NOTE },
    samples: [
      { name: 'summarize a subject', action: 'summarize', input: { subject: SUBJECT } },
      {
        name: 'summarize with a focus',
        action: 'summarize',
        input: { subject: { name: 'Acme Ltd', country: 'CY' }, focus: 'ownership structure' },
      },
    ],
  };
}
