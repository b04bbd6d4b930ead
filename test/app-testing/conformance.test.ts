// The conformance check on real modules: a good app passes with samples of both kinds (webhooks as a
// function and as a JSON template), a sloppy one fails with messages that say what to fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConformanceReport,
  checkConformance,
  type Sample,
  signedWebhook,
  startVendorDouble,
  type VendorDouble,
} from '../../packages/app-testing/src/index.ts';
import { buildFixture } from '../support/assemblyscript.ts';

const WEBHOOK_SECRET = 'whsec-test-0123456789';
let vendorApp: Uint8Array;
let sloppy: Uint8Array;
let vendor: VendorDouble;

beforeAll(async () => {
  [vendorApp, sloppy] = await Promise.all([buildFixture('vendor-app'), buildFixture('sloppy')]);
  vendor = await startVendorDouble([
    { method: 'GET', path: '/things/:id', respond: (r) => ({ json: { id: r.params.id } }) },
    { method: 'POST', path: '/sessions', status: 201, json: { sessionId: 'sess_42' } },
  ]);
}, 120_000);
afterAll(() => vendor?.close());

const byName = (report: ConformanceReport) => Object.fromEntries(report.checks.map((c) => [c.name, c]));
const setup = () => ({
  config: { baseUrl: vendor.url },
  secrets: { API_KEY: 'sk-test-abcdef123456', WEBHOOK_SECRET },
});

describe('checkConformance', () => {
  it('passes a good app without samples, running the checks that need none', async () => {
    const report = await checkConformance(vendorApp);
    expect(report.passed).toBe(true);
    expect(report.checks).toEqual([
      { name: 'manifest parses strictly', passed: true, message: 'vendor-app 1.0.0, 7 action(s)' },
      { name: 'schemas compile', passed: true },
      {
        name: 'invoke refuses an unknown action',
        passed: true,
        message: 'answered error: unknown action conformance_unknown_action',
      },
    ]);
  });

  it('passes synchronous and asynchronous samples, completing sessions through handle_webhook', async () => {
    const samples: Sample[] = [
      { action: 'lookup', input: { thingId: 't-1' } },
      {
        name: 'start (function webhook)',
        action: 'start',
        input: { applicant: 'Ada' },
        webhook: (externalId) =>
          signedWebhook({ secret: WEBHOOK_SECRET, body: { session: externalId, decision: 'approved' } }),
      },
      {
        name: 'start (template webhook)',
        action: 'start',
        input: { applicant: 'Bob' },
        webhook: {
          body: { session: '{{externalId}}', decision: 'declined' },
          sign: { secretName: 'WEBHOOK_SECRET' },
        },
      },
    ];
    const report = await checkConformance(vendorApp, { ...setup(), samples });
    expect(report.checks.filter((c) => !c.passed)).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual([
      'manifest parses strictly',
      'schemas compile',
      'config matches configSchema',
      'invoke refuses an unknown action',
      'lookup sample 1: answers ok with output valid against the output schema',
      'start (function webhook): answers pending with an external id',
      'start (function webhook): handoff answers for the pending external id',
      'start (function webhook): completes through handle_webhook with the same external id',
      'start (template webhook): answers pending with an external id',
      'start (template webhook): handoff answers for the pending external id',
      'start (template webhook): completes through handle_webhook with the same external id',
    ]);
    expect(
      byName(report)['start (template webhook): completes through handle_webhook with the same external id']
        ?.message,
    ).toMatch(/^event [0-9a-f]{64} completed$/);
  });

  it('fails a module that answers ok for an unknown action and whose output breaks its schema', async () => {
    const report = await checkConformance(sloppy, { samples: [{ action: 'greet', input: {} }] });
    expect(report.passed).toBe(false);
    const checks = byName(report);
    expect(checks['manifest parses strictly']?.passed).toBe(true);
    expect(checks['invoke refuses an unknown action']).toEqual({
      name: 'invoke refuses an unknown action',
      passed: false,
      message:
        'invoke answered ok for an action the manifest does not declare (conformance_unknown_action); answer { status: "error" } instead',
    });
    expect(checks['greet sample 1: answers ok with output valid against the output schema']).toEqual({
      name: 'greet sample 1: answers ok with output valid against the output schema',
      passed: false,
      message: 'the output breaks the output schema: output/greeting must be string',
    });
  });

  it('says what is wrong with a sample, a missing webhook, a rejected webhook and a bad config', async () => {
    const report = await checkConformance(vendorApp, {
      config: { baseUrl: 42 },
      secrets: setup().secrets,
      samples: [
        { action: 'nope', input: {} },
        { action: 'lookup', input: {} },
        { name: 'no webhook', action: 'start', input: { applicant: 'Ada' } },
        {
          name: 'forged',
          action: 'start',
          input: { applicant: 'Ada' },
          webhook: (id) => signedWebhook({ secret: 'wrong', body: { session: id, decision: 'approved' } }),
        },
      ],
    });
    expect(report.passed).toBe(false);
    const failed = Object.fromEntries(report.checks.filter((c) => !c.passed).map((c) => [c.name, c.message]));
    expect(failed).toEqual({
      'config matches configSchema': 'config/baseUrl must be string',
      'nope sample 1': 'the manifest declares no action nope',
      'lookup sample 2':
        "the sample's input breaks the input schema: input must have required property 'thingId'",
      // With a baseUrl that is no URL the vendor is unreachable, and the module says so.
      'no webhook: answers pending with an external id':
        'an asynchronous action answers pending; it answered {"status":"error","message":"the vendor opened no session","retryable":true}',
      'forged: answers pending with an external id':
        'an asynchronous action answers pending; it answered {"status":"error","message":"the vendor opened no session","retryable":true}',
    });

    const webhooks = await checkConformance(vendorApp, {
      ...setup(),
      samples: [
        { name: 'no webhook', action: 'start', input: { applicant: 'Ada' } },
        {
          name: 'forged',
          action: 'start',
          input: { applicant: 'Ada' },
          webhook: (id) => signedWebhook({ secret: 'wrong', body: { session: id, decision: 'approved' } }),
        },
        {
          name: 'elsewhere',
          action: 'start',
          input: { applicant: 'Ada' },
          webhook: () =>
            signedWebhook({ secret: WEBHOOK_SECRET, body: { session: 'sess_other', decision: 'approved' } }),
        },
      ],
    });
    const messages = Object.fromEntries(
      webhooks.checks.filter((c) => !c.passed).map((c) => [c.name, c.message]),
    );
    expect(messages).toEqual({
      'no webhook: completes through handle_webhook with the same external id':
        'the sample gives no webhook to complete the session; add one (see the app-testing README)',
      'forged: completes through handle_webhook with the same external id':
        'handle_webhook answered {"status":"rejected","message":"bad signature"}',
      'elsewhere: completes through handle_webhook with the same external id':
        'the api would look up session sess_other, not sess_42',
    });
  });

  it('stops at a module the platform refuses, naming why', async () => {
    const report = await checkConformance(new Uint8Array([0, 97, 115, 109, 9, 0, 0, 0]));
    expect(report.passed).toBe(false);
    expect(report.checks).toHaveLength(1);
    expect(report.checks[0]).toMatchObject({ name: 'manifest parses strictly', passed: false });
    expect(report.checks[0]?.message).toBeTruthy();
  });
});
