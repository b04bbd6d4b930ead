// The deliveries listing's bounds on creation (src/outbound-webhooks/deliveries/time-filter-rules.ts): the spec's `time`
// interval, or `from` and `to`; one row per sentence of the rule.
import { describe, expect, it } from 'vitest';
import { timeFilterOf } from '../../src/outbound-webhooks/deliveries/time-filter-rules.ts';

const A = '2030-04-01T00:00:00Z';
const B = '2030-04-02T00:00:00.500+02:00';
const SHAPE = 'must be an interval <start>/<end> of ISO 8601 date-times, either side open (.. or empty)';

describe('timeFilterOf', () => {
  const rows: [string, Parameters<typeof timeFilterOf>[0], ReturnType<typeof timeFilterOf>][] = [
    ['nothing asked: no bounds', {}, { bounds: {} }],
    [
      'time: start inclusive, end exclusive',
      { time: `${A}/${B}` },
      { bounds: { from: new Date(A), to: new Date(B) } },
    ],
    ['time open at its end with ..', { time: `${A}/..` }, { bounds: { from: new Date(A) } }],
    ['time open at its start, left empty', { time: `/${B}` }, { bounds: { to: new Date(B) } }],
    [
      'time open at both sides: refused',
      { time: '../..' },
      { refused: { path: 'query.time', message: SHAPE } },
    ],
    ['time without a slash: refused', { time: A }, { refused: { path: 'query.time', message: SHAPE } }],
    [
      'time with two slashes: refused',
      { time: `${A}/${B}/` },
      { refused: { path: 'query.time', message: SHAPE } },
    ],
    [
      'time with a date only: refused',
      { time: '2030-04-01/..' },
      { refused: { path: 'query.time', message: SHAPE } },
    ],
    [
      'time with a day that is none: refused',
      { time: '2030-02-31T00:00:00Z/..' },
      { refused: { path: 'query.time', message: SHAPE } },
    ],
    [
      'time ending at or before its start: refused',
      { time: `${B}/${A}` },
      { refused: { path: 'query.time', message: 'its end must be after its start' } },
    ],
    [
      'time beside from or to: refused',
      { time: `${A}/..`, to: B },
      { refused: { path: 'query.time', message: 'give time, or from and to, not both' } },
    ],
    ['from and to as before', { from: A, to: B }, { bounds: { from: new Date(A), to: new Date(B) } }],
    [
      'to not after from: refused at to',
      { from: B, to: A },
      { refused: { path: 'query.to', message: 'must be after from' } },
    ],
  ];
  for (const [rule, query, expected] of rows) it(rule, () => expect(timeFilterOf(query)).toEqual(expected));
});
