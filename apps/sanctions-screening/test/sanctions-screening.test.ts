// sanctions-screening through the real host: built from source, run by the test loader against a match
// API double on 127.0.0.1 (approved through the baseUrl hostsFromConfig field).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkConformance,
  type LoadedApp,
  loadApp,
  startVendorDouble,
  type VendorDouble,
} from '../../../packages/app-testing/src/index.ts';
import { buildApp } from '../../../src/app-cli/compile.ts';
import setup, { API_KEY, matchAnswer } from './conformance.ts';

const APP_DIR = path.resolve(import.meta.dirname, '..');
let tmp: string;
let modulePath: string;
let vendor: VendorDouble;
let app: LoadedApp;

/** What the double answers next on POST /match/:dataset (the conformance answer by default). */
let next: Parameters<typeof vendor.route>[0]['respond'] = matchAnswer;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'sanctions-screening-'));
  modulePath = (await buildApp(APP_DIR, path.join(tmp, 'sanctions-screening.wasm'))).path;
  vendor = await startVendorDouble([
    { method: 'POST', path: '/match/:dataset', respond: (request) => (next ?? matchAnswer)(request) },
  ]);
  app = await loadApp(modulePath, {
    config: { baseUrl: vendor.url },
    secrets: { API_KEY },
  });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await vendor?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

function answerWith(answer: Awaited<ReturnType<NonNullable<typeof next>>>) {
  next = () => answer;
}

async function screen(input: Record<string, unknown>) {
  vendor.reset();
  try {
    return await app.invoke('screen', input);
  } finally {
    next = matchAnswer;
  }
}

describe('sanctions-screening manifest', () => {
  it('declares one idempotent screen action with retry and the baseUrl host from config', () => {
    expect(app.manifest.name).toBe('sanctions-screening');
    expect(app.manifest.version).toBe('1.0.0');
    expect(app.manifest.hostsFromConfig).toEqual(['/baseUrl']);
    expect(app.manifest.secrets.map((s) => s.name)).toEqual(['API_KEY']);
    const action = app.manifest.actions.find((a) => a.name === 'screen');
    expect(action?.idempotent).toBe(true);
    expect(action?.retry).toEqual({ maxAttempts: 3, backoffMs: 500 });
    expect(action?.async).toBeUndefined();
    // The loader approved exactly the double's host, taken from the config.
    expect(app.hosts).toEqual([vendor.host]);
  });
});

describe('screen', () => {
  it('posts a Person query with the API key filled by the host, and answers the hit', async () => {
    const { answer, usage } = await screen({
      entityType: 'person',
      name: 'Vladimir Putin',
      birthDate: '1952-10-07',
      nationality: 'ru',
      country: 'ru',
    });
    expect(vendor.requests).toHaveLength(1);
    const request = vendor.requests[0];
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/match/default');
    expect(request?.headers.authorization).toBe(`ApiKey ${API_KEY}`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      queries: {
        q1: {
          schema: 'Person',
          properties: {
            name: ['Vladimir Putin'],
            country: ['ru'],
            birthDate: ['1952-10-07'],
            nationality: ['ru'],
          },
        },
      },
    });
    expect(answer).toEqual({
      status: 'ok',
      output: {
        hit: true,
        matches: [
          {
            id: 'Q7747',
            caption: 'Vladimir Putin',
            schema: 'Person',
            score: 0.93,
            match: true,
            datasets: ['eu_fsf', 'us_ofac_sdn'],
          },
        ],
        total: 1,
      },
    });
    expect(usage.httpRequests).toBe(1);
  });

  it('posts a Company query mapping registrationNumber, nationality and birthDate', async () => {
    const { answer } = await screen({
      entityType: 'company',
      name: 'Acme Trading LLC',
      birthDate: '2004',
      nationality: 'cy',
      country: 'ru',
      registrationNumber: 'HE123456',
    });
    expect(JSON.parse(vendor.requests[0]?.body ?? '')).toEqual({
      queries: {
        q1: {
          schema: 'Company',
          properties: {
            name: ['Acme Trading LLC'],
            country: ['ru'],
            incorporationDate: ['2004'],
            jurisdiction: ['cy'],
            registrationNumber: ['HE123456'],
          },
        },
      },
    });
    // Score 0.41 under the default threshold 0.7 and match false: no hit.
    expect(answer).toMatchObject({ status: 'ok', output: { hit: false, total: 1 } });
  });

  it('counts a score at the threshold as a hit, and a vendor match below it too', async () => {
    const result = (id: string, score: number, match: boolean) => ({
      id,
      caption: id,
      schema: 'Person',
      score,
      match,
      datasets: ['x'],
      properties: {},
    });
    answerWith({
      json: { responses: { q1: { results: [result('a', 0.7, false)], total: { value: 12 } } } },
    });
    const atThreshold = await screen({ entityType: 'person', name: 'A' });
    expect(atThreshold.answer).toMatchObject({ status: 'ok', output: { hit: true, total: 12 } });

    answerWith({ json: { responses: { q1: { results: [result('b', 0.2, true)] } } } });
    const vendorMatch = await screen({ entityType: 'person', name: 'B' });
    expect(vendorMatch.answer).toMatchObject({ status: 'ok', output: { hit: true, total: 1 } });

    answerWith({ json: { responses: { q1: { results: [], total: { value: 0 } } } } });
    const none = await screen({ entityType: 'person', name: 'C' });
    expect(none.answer).toEqual({ status: 'ok', output: { hit: false, matches: [], total: 0 } });
  });

  it('reads dataset and threshold from config', async () => {
    const strict = await loadApp(modulePath, {
      config: { baseUrl: `${vendor.url}/`, dataset: 'sanctions', threshold: 0.95 },
      secrets: { API_KEY },
    });
    try {
      vendor.reset();
      const { answer } = await strict.invoke('screen', { entityType: 'person', name: 'Vladimir Putin' });
      expect(vendor.requests[0]?.path).toBe('/match/sanctions');
      // Score 0.93 is under 0.95, but the API marks it a match.
      expect(answer).toMatchObject({ status: 'ok', output: { hit: true } });
    } finally {
      await strict.close();
    }
  });
});

describe('screen errors', () => {
  it('answers 429 as retryable with the Retry-After wait', async () => {
    answerWith({ status: 429, headers: { 'retry-after': '7' }, json: { detail: 'Rate limit exceeded' } });
    const { answer } = await screen({ entityType: 'person', name: 'A' });
    expect(answer).toEqual({
      status: 'error',
      message: 'the match API answered 429: Rate limit exceeded',
      retryable: true,
      retryAfterMs: 7000,
    });
  });

  it('answers 5xx as retryable, without a wait when the vendor names none', async () => {
    answerWith({ status: 503, body: 'upstream unavailable' });
    const { answer } = await screen({ entityType: 'person', name: 'A' });
    expect(answer).toEqual({
      status: 'error',
      message: 'the match API answered 503: upstream unavailable',
      retryable: true,
    });
  });

  it('answers 401 and 403 as final errors naming authentication, with an echoed key redacted', async () => {
    for (const status of [401, 403]) {
      answerWith({ status, json: { detail: `invalid key ApiKey ${API_KEY}` } });
      const { answer } = await screen({ entityType: 'person', name: 'A' });
      expect(answer.status).toBe('error');
      const error = answer as { message: string; retryable?: boolean };
      expect(error.retryable).toBeUndefined();
      expect(error.message).toContain(`authentication failed: the match API answered ${status}`);
      expect(error.message).toContain('[secret:API_KEY]');
      expect(JSON.stringify(answer)).not.toContain(API_KEY);
    }
  });

  it('answers any other 4xx as final', async () => {
    answerWith({ status: 400, json: { detail: 'Invalid schema: Persn' } });
    const { answer } = await screen({ entityType: 'person', name: 'A' });
    expect(answer).toEqual({ status: 'error', message: 'the match API answered 400: Invalid schema: Persn' });
  });

  it('answers a 2xx that is no match response as final', async () => {
    answerWith({ json: { hello: 'world' } });
    const { answer } = await screen({ entityType: 'person', name: 'A' });
    expect(answer).toEqual({
      status: 'error',
      message: 'the match API answered 200 without responses.q1.results',
    });
  });

  it('answers an unreachable API as retryable', async () => {
    const gone = await startVendorDouble();
    const url = gone.url;
    await gone.close();
    const offline = await loadApp(modulePath, { config: { baseUrl: url }, secrets: { API_KEY } });
    try {
      const { answer } = await offline.invoke('screen', { entityType: 'company', name: 'Acme' });
      expect(answer).toMatchObject({ status: 'error', retryable: true });
      expect((answer as { message: string }).message).toMatch(/^the match API could not be reached/);
    } finally {
      await offline.close();
    }
  });

  it('refuses an unknown action', async () => {
    const { answer } = await app.invoke('lookup', {});
    expect(answer).toEqual({ status: 'error', message: 'unknown action lookup' });
  });
});

describe('conformance', () => {
  it('passes with the samples of test/conformance.ts', async () => {
    const options = await setup();
    try {
      const report = await checkConformance(modulePath, options);
      expect(report.checks.filter((c) => !c.passed)).toEqual([]);
      expect(report.passed).toBe(true);
      expect(report.checks.map((c) => c.name)).toContain(
        'screen a person: answers ok with output valid against the output schema',
      );
    } finally {
      await options.close?.();
    }
  });
});
