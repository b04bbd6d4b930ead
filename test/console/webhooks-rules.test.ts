// The webhooks pages' pure rules, a row per case: the deliveries filter between the URL and the API, the
// datetime-local field and an instant, an endpoint form's body, a refusal's issues beside their fields,
// what a ping's answer says, and when the deliveries list follows itself.
import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../../console/src/api/errors.ts';
import {
  deliveriesInMotion,
  deliveryFilterOf,
  deliveryQueryOf,
  endpointBodyOf,
  fieldErrorsOf,
  fieldSentence,
  instantOfLocalInput,
  localInputOf,
  pingSummary,
  sampleText,
  withDeliveryFilter,
} from '../../console/src/pages/webhooks/webhook-rules.ts';

const ID = '0190d5e2-0000-7000-8000-000000000001';

describe('the deliveries filter in the URL', () => {
  it.each([
    ['nothing', '', { status: [] }],
    [
      'every filter',
      `endpointId=${ID}&status=failed&status=exhausted&event=run.completed&from=2026-11-01T00:00:00.000Z&to=2026-11-02T00:00:00.000Z`,
      {
        endpointId: ID,
        status: ['failed', 'exhausted'],
        event: 'run.completed',
        from: '2026-11-01T00:00:00.000Z',
        to: '2026-11-02T00:00:00.000Z',
      },
    ],
    [
      'an unknown status left out, a repeated one once',
      'status=lost&status=failed&status=failed',
      { status: ['failed'] },
    ],
    ['empty values as none', 'endpointId=&event=%20&from=', { status: [] }],
  ])('reads %s', (_case, search, filter) => {
    expect(deliveryFilterOf(new URLSearchParams(search))).toEqual(filter);
  });

  it('writes a filter back over the old one, to the first page, keeping the rest', () => {
    const before = new URLSearchParams(`status=pending&event=run.failed&offset=40&limit=20&delivery=${ID}`);
    const after = withDeliveryFilter(before, { status: ['failed', 'exhausted'], endpointId: ID });
    expect(after.toString()).toBe(`limit=20&delivery=${ID}&status=failed&status=exhausted&endpointId=${ID}`);
    expect(deliveryFilterOf(after)).toEqual({ status: ['failed', 'exhausted'], endpointId: ID });
  });

  it.each([
    ['a page alone', { status: [] }, { limit: 20, offset: 0 }],
    [
      'statuses repeated and the window',
      { status: ['failed', 'exhausted'], from: '2026-11-01T00:00:00.000Z', to: '2026-11-02T00:00:00.000Z' },
      {
        limit: 20,
        offset: 0,
        status: ['failed', 'exhausted'],
        from: '2026-11-01T00:00:00.000Z',
        to: '2026-11-02T00:00:00.000Z',
      },
    ],
    [
      'an endpoint and an event',
      { status: [], endpointId: ID, event: 'ping' },
      { limit: 20, offset: 0, endpointId: ID, event: 'ping' },
    ],
  ] as const)('asks the API for %s', (_case, filter, query) => {
    expect(deliveryQueryOf({ ...filter, status: [...filter.status] }, { limit: 20, offset: 0 })).toEqual(
      query,
    );
  });

  it.each([
    [[], false],
    [[{ status: 'delivered' }, { status: 'exhausted' }], false],
    [[{ status: 'delivered' }, { status: 'pending' }], true],
    [[{ status: 'failed' }], true],
  ])('follows itself while a delivery is still to be tried: %j → %s', (items, moving) => {
    expect(deliveriesInMotion(items)).toBe(moving);
  });
});

describe('the datetime-local field', () => {
  it.each([
    ['2026-11-29T10:05'],
    ['2026-01-01T00:00'],
    ['2026-12-31T23:59'],
  ])('reads %s as an instant and shows it back the same', (text) => {
    const instant = instantOfLocalInput(text) as string;
    expect(instant).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
    expect(new Date(instant).getTime()).toBe(new Date(text).getTime());
    expect(localInputOf(instant)).toBe(text);
  });

  it.each([[''], ['yesterday'], ['2026-13-40T99:99'], ['2026-11-29']])('reads %j as none', (text) => {
    expect(instantOfLocalInput(text)).toBeUndefined();
  });

  it.each([[undefined], [''], ['not a date']])('shows %j as an empty field', (iso) => {
    expect(localInputOf(iso)).toBe('');
  });
});

describe('an endpoint form’s body', () => {
  const catalogue = ['decision.created', 'run.completed', 'run.failed'];
  it.each([
    [
      'trimmed, events in catalogue order',
      {
        url: ' https://hooks.example.com/a ',
        description: ' CRM ',
        events: ['run.failed', 'decision.created'],
        enabled: true,
      },
      {
        url: 'https://hooks.example.com/a',
        description: 'CRM',
        events: ['decision.created', 'run.failed'],
        enabled: true,
      },
    ],
    [
      'an empty description as none, disabled kept',
      { url: 'https://h.example', description: '   ', events: ['run.completed'], enabled: false },
      { url: 'https://h.example', description: null, events: ['run.completed'], enabled: false },
    ],
    [
      'an event the catalogue lacks kept last (the API judges it)',
      { url: 'https://h.example', description: '', events: ['gone.event', 'run.completed'], enabled: true },
      { url: 'https://h.example', description: null, events: ['run.completed', 'gone.event'], enabled: true },
    ],
  ])('%s', (_case, form, body) => {
    expect(endpointBodyOf(form, catalogue)).toEqual(body);
  });
});

describe('a refusal beside its fields', () => {
  const refusal = (issues: unknown, code = 'validation_error') =>
    new ApiFailure(400, code, 'request is not valid', 'req-1', { issues });
  it.each([
    ['the URL', refusal([{ path: '/url', message: 'must use https' }]), { url: 'must use https', other: [] }],
    [
      'an event at its index, the first issue of a field',
      refusal([
        { path: '/events/1', message: 'must not repeat an event type' },
        { path: '/events', message: 'second' },
      ]),
      { events: 'must not repeat an event type', other: [] },
    ],
    [
      'what no field shows',
      refusal([
        { path: '/colour', message: 'unknown field' },
        { path: '/', message: 'must be an object' },
      ]),
      { other: ['/colour: unknown field', 'must be an object'] },
    ],
    ['another code', new ApiFailure(409, 'conflict', 'at most 20', 'r', { max: 20 }), { other: [] }],
    ['no issues', refusal(undefined), { other: [] }],
    ['not a refusal', new Error('boom'), { other: [] }],
  ])('%s', (_case, error, errors) => {
    expect(fieldErrorsOf(error)).toEqual(errors);
  });

  it.each([
    ['The URL', 'must use https', 'The URL must use https.'],
    [
      'The URL',
      'must not hold a fragment (#…): it is never sent',
      'The URL must not hold a fragment (#…): it is never sent.',
    ],
    ['Events', 'must NOT have fewer than 1 items.', 'Events must NOT have fewer than 1 items.'],
  ])('%s %s reads "%s"', (label, message, sentence) => {
    expect(fieldSentence(label, message)).toBe(sentence);
  });
});

describe('a ping’s answer', () => {
  it.each([
    [{ delivered: true, responseCode: 204, latencyMs: 12 }, 'Delivered: the endpoint answered 204 in 12 ms.'],
    [
      { delivered: false, responseCode: 500, latencyMs: 30, error: 'the endpoint answered 500' },
      'Not delivered: the endpoint answered 500 (after 30 ms).',
    ],
    [
      { delivered: false, responseCode: null, latencyMs: 3, error: 'connection refused' },
      'Not delivered: connection refused (after 3 ms).',
    ],
    [{ delivered: false, responseCode: null, latencyMs: 3 }, 'Not delivered: no answer came (after 3 ms).'],
  ])('%j says "%s"', (result, sentence) => {
    expect(pingSummary(result)).toBe(sentence);
  });
});

it('shows a sample as indented JSON text', () => {
  expect(sampleText({ type: 'ping', data: { note: '<img>' } })).toBe(
    '{\n  "type": "ping",\n  "data": {\n    "note": "<img>"\n  }\n}',
  );
});
