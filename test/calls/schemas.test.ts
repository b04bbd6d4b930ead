// The call routes' answer schemas name every field the answers carry: Fastify drops any field a closed
// schema leaves out, so an answer with every optional part filled must pass them.
import { readFileSync } from 'node:fs';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import type { MeteringItem } from '../../src/calls/metering-report.ts';
import { MeteringReport, MonthMeteringReport, TestCallAnswer } from '../../src/calls/schemas.ts';
import { testCallAnswer } from '../../src/calls/test-call.ts';

const problems = (schema: TSchema, value: unknown) =>
  [...Value.Errors(schema, value)].map((e) => `${e.instancePath} ${e.message}`);

const usage = {
  httpRequests: 2,
  reusedConnections: 1,
  documentReads: 1,
  logLines: 1,
  ai: { requests: 1, inputTokens: 10, outputTokens: 5 },
};

describe('call answer schemas', () => {
  it('hold a test call’s answer with every optional part filled', () => {
    const answer = testCallAnswer({
      status: 'error',
      output: { any: 'thing' },
      externalId: 'ext-1',
      callbackTimeoutSeconds: 60,
      error: {
        code: 'validation_error',
        reason: 'output',
        message: 'no',
        retryable: true,
        retryAfterMs: 100,
        details: { issues: [] },
      },
      callId: 'c1',
      ran: true,
      counted: 'none',
      durationMs: 12,
      usage,
      logs: [{ level: 'info', message: 'hello' }],
    });
    expect(problems(TestCallAnswer, answer)).toEqual([]);
  });

  it('hold a metering report row with spend', () => {
    const item: Required<MeteringItem> = {
      installId: '0f3c2a6e-8d1b-4c57-9a1e-2b7d5e4f6a10',
      installName: 'screening',
      appName: 'screen',
      action: 'screen',
      day: '2026-11-24',
      calls: 3,
      httpRequests: 4,
      spend: [{ currency: 'EUR', micros: 1500 }],
      webhooks: 2,
      handoffs: 1,
    };
    expect(problems(MeteringReport, { from: '2026-11-01', to: '2026-11-24', items: [item] })).toEqual([]);
  });

  it('hold the month report docs/limits-and-metering.md shows, and refuse it with a field too many', () => {
    const docs = readFileSync(new URL('../../docs/limits-and-metering.md', import.meta.url), 'utf8');
    const example = docs.split('### The month report')[1]?.match(/```json\n([\s\S]*?)```/)?.[1];
    const report = JSON.parse(example ?? 'null');
    expect(problems(MonthMeteringReport, report)).toEqual([]);
    expect(problems(MonthMeteringReport, { ...report, month: '2026-3' })).not.toEqual([]);
    const install = { ...report.installs[0], actions: [] };
    expect(problems(MonthMeteringReport, { ...report, installs: [install] })).not.toEqual([]);
  });
});
