// The fair deal of due deliveries (src/outbound-webhooks/sending/claim-rules.ts), one row per sentence of the rule.
import { describe, expect, it } from 'vitest';
import { type Candidate, fairPicks, type InFlight } from '../../src/outbound-webhooks/sending/claim-rules.ts';

const LIMITS = { window: 6, perTenant: 4, perEndpoint: 2 };
const idle: InFlight = { total: 0, byTenant: new Map(), byEndpoint: new Map() };

/** `n` candidates of tenant `t`'s endpoint `e`, ids `t/e/k`, due at `from + k` seconds. */
const due = (t: string, e: string, n: number, from = 0): Candidate[] =>
  Array.from({ length: n }, (_, k) => ({
    id: `${t}/${e}/${k}`,
    endpointId: `${t}/${e}`,
    tenantId: t,
    dueAt: new Date((from + k) * 1000),
  }));

const busy = (total: number, tenants: [string, number][], endpoints: [string, number][]): InFlight => ({
  total,
  byTenant: new Map(tenants),
  byEndpoint: new Map(endpoints),
});

describe('fairPicks', () => {
  const rows: [string, Candidate[], InFlight, string[]][] = [
    ['nothing due: nothing', [], idle, []],
    ['one endpoint takes at most its share', due('a', '1', 5), idle, ['a/1/0', 'a/1/1']],
    [
      'a tenant takes at most its share, its endpoints in turn, oldest first',
      [...due('a', '1', 3), ...due('a', '2', 3, 10), ...due('a', '3', 3, 20)],
      idle,
      ['a/1/0', 'a/2/0', 'a/3/0', 'a/1/1'],
    ],
    [
      'tenants in turn, the one due longest first, so a later tenant is not left behind an earlier one’s backlog',
      [...due('a', '1', 2), ...due('a', '2', 2, 1), ...due('b', '1', 2, 50)],
      idle,
      ['a/1/0', 'b/1/0', 'a/2/0', 'b/1/1', 'a/1/1', 'a/2/1'],
    ],
    [
      'the window caps the whole deal',
      [...due('a', '1', 2), ...due('b', '1', 2), ...due('c', '1', 2), ...due('d', '1', 2)],
      idle,
      ['a/1/0', 'b/1/0', 'c/1/0', 'd/1/0', 'a/1/1', 'b/1/1'],
    ],
    [
      'what is in flight counts: an endpoint at its share takes nothing, its tenant’s other endpoints do',
      [...due('a', '1', 2), ...due('a', '2', 2, 5)],
      busy(2, [['a', 2]], [['a/1', 2]]),
      ['a/2/0', 'a/2/1'],
    ],
    [
      'a tenant at its share takes nothing, another tenant does',
      [...due('a', '1', 2), ...due('b', '1', 1, 9)],
      busy(
        4,
        [['a', 4]],
        [
          ['a/2', 2],
          ['a/3', 2],
        ],
      ),
      ['b/1/0'],
    ],
    [
      'a full window takes nothing',
      due('a', '1', 2),
      busy(
        6,
        [
          ['x', 4],
          ['y', 2],
        ],
        [],
      ),
      [],
    ],
  ];
  for (const [rule, candidates, inFlight, picks] of rows)
    it(rule, () => expect(fairPicks(candidates, inFlight, LIMITS)).toEqual(picks));

  it('is the same whatever order the candidates come in', () => {
    const candidates = [...due('a', '1', 3), ...due('b', '2', 3, 1), ...due('a', '3', 2, 2)];
    expect(fairPicks([...candidates].reverse(), idle, LIMITS)).toEqual(fairPicks(candidates, idle, LIMITS));
  });
});
