// The pure rules of automatic upgrades (docs/upgrades.md): which release an opted-in install moves to
// (upgradeTargets, best first), and whether the move applies at once, is held for approval or waits (decideMove), one
// row per sentence of the rule.
import { describe, expect, it } from 'vitest';
import {
  decideMove,
  type MoveFacts,
  missingActions,
  upgradeTargets,
} from '../../src/installs/upgrade/upgrade-rules.ts';

const versions = (...list: string[]) => list.map((version) => ({ version, id: `v-${version}` }));

const upgradeTarget = (running: string, stopped: boolean, candidates: { version: string; id: string }[]) =>
  upgradeTargets(running, stopped, candidates)[0] ?? null;

describe('upgradeTargets', () => {
  it.each([
    // The same major from 1.0.0: the highest release of the range above what it runs.
    ['1.0.0', ['1.0.1', '1.1.0', '1.2.3'], '1.2.3'],
    ['1.0.0', ['1.10.0', '1.9.0'], '1.10.0'],
    ['1.2.0', ['2.0.0', '3.1.0'], null],
    // The same minor on 0.x.
    ['0.3.1', ['0.3.4', '0.4.0', '1.0.0'], '0.3.4'],
    ['0.3.1', ['0.4.0'], null],
    // Never to a prerelease (an install on a prerelease moves to the release).
    ['1.2.0', ['1.3.0-beta.1', '1.2.1'], '1.2.1'],
    ['1.2.0', ['1.3.0-beta.1'], null],
    ['1.2.0-beta.1', ['1.2.0'], '1.2.0'],
    // Not down, nor to itself, while what it runs stands.
    ['1.2.0', ['1.1.0', '1.2.0'], null],
    // Nothing to move to; nothing read from what is no semantic version.
    ['1.0.0', [], null],
    ['not-semver', ['1.0.0'], null],
    ['1.0.0', ['junk', '1.0.1'], '1.0.1'],
  ])('running %s among %j: %s', (running, candidates, target) => {
    const found = upgradeTarget(running, false, versions(...candidates));
    expect(found?.target.version ?? null).toBe(target);
    expect(found?.rollback ?? false).toBe(false);
  });

  it.each([
    // Withdrawn or blocked: the highest published release of the same range, lower if need be (rollback).
    ['1.2.0', ['1.1.0', '1.0.5', '2.0.0', '0.9.0'], '1.1.0', true],
    ['0.3.2', ['0.3.1', '0.2.9'], '0.3.1', true],
    // A higher release of the range is still the highest: a plain upgrade.
    ['1.2.0', ['1.1.0', '1.2.1'], '1.2.1', false],
    // Never a prerelease, never out of the range: nothing when none is left.
    ['1.2.0', ['1.1.0-rc.1', '2.0.0', '0.9.0'], null, false],
  ])('running %s, withdrawn or blocked, among %j: %s (rollback %s)', (running, candidates, target, rollback) => {
    const found = upgradeTarget(running, true, versions(...candidates));
    expect(found?.target.version ?? null).toBe(target);
    expect(found?.rollback ?? false).toBe(rollback);
  });

  it.each([
    // Off a withdrawn or blocked version, every release of the range, highest first: the store takes the
    // first the install can move to at once (docs/upgrades.md "Rollback").
    ['1.0.1', true, ['1.0.0', '1.1.0', '2.0.0', '1.1.1-rc.1'], ['1.1.0', '1.0.0']],
    // While it stands, only those above it, highest first.
    ['1.0.1', false, ['1.0.0', '1.1.0', '1.0.2'], ['1.1.0', '1.0.2']],
  ])('running %s (stopped %s) among %j, in order: %j', (running, stopped, candidates, order) => {
    expect(upgradeTargets(running, stopped, versions(...candidates)).map((t) => t.target.version)).toEqual(
      order,
    );
  });

  it('answers the candidate itself, with whatever else it carries', () => {
    const newest = { version: '1.1.0', id: 'v-11' };
    expect(upgradeTarget('1.0.0', false, [{ version: '1.0.5', id: 'v-105' }, newest])?.target).toBe(newest);
  });
});

const sync = (name: string) => ({ name, input: {}, output: {}, timeoutMs: 1000, idempotent: false });
const asynchronous = (name: string) => ({ ...sync(name), async: { callbackTimeoutSeconds: 600 } });
const VENDOR = 'api.vendor.test';

interface ManifestOver {
  actions?: ReturnType<typeof sync>[];
  needs?: 'documents'[];
  handles?: { webhook: boolean; handoff: boolean; webhookExternalIdFromConfig?: string };
}
const manifest = (over: ManifestOver = {}) => ({
  actions: over.actions ?? [sync('screen'), sync('lookup'), asynchronous('verify')],
  needs: over.needs ?? [],
  handles: over.handles ?? { webhook: false, handoff: false },
});

interface FactsOver {
  current?: ManifestOver;
  target?: ManifestOver;
  config?: Record<string, unknown>;
  targetHosts?: string[];
  issues?: { path: string; message: string }[];
  missingSecrets?: string[];
  calls?: MoveFacts['calls'];
  openChange?: MoveFacts['openChange'];
  declined?: boolean;
}
const facts = (over: FactsOver = {}): MoveFacts => ({
  current: { manifest: manifest(over.current), config: over.config ?? {}, hosts: [VENDOR] },
  target: {
    id: 'target',
    manifest: manifest(over.target),
    checked: { issues: over.issues ?? [], hosts: over.targetHosts ?? [VENDOR] },
    missingSecrets: over.missingSecrets ?? [],
  },
  calls: over.calls ?? [],
  openChange: over.openChange ?? null,
  declined: over.declined ?? false,
});

const workflow = (...actions: string[]) => ({ kind: 'workflow' as const, key: 'flow', version: 2, actions });
const ruleSet = (...actions: string[]) => ({ kind: 'rule_set' as const, key: 'rules', version: 1, actions });
const lacking = (...names: string[]) => ({
  actions: [sync('screen'), sync('lookup'), asynchronous('verify')].filter((a) => !names.includes(a.name)),
});
const ISSUE = { path: '/region', message: 'must be one of eu, us' };

describe('decideMove', () => {
  it.each<[string, FactsOver, Record<string, unknown>]>([
    [
      'applied at once when the target adds nothing',
      {},
      { action: 'apply', waitingFor: null, hostsAdded: [] },
    ],
    [
      'applied with the hosts the target no longer calls dropped',
      { targetHosts: [] },
      { action: 'apply', waitingFor: null, hostsRemoved: [VENDOR] },
    ],
    [
      'held for approval when the target calls a host not among the approved ones',
      { targetHosts: [VENDOR, 'status.vendor.test'] },
      { action: 'hold', waitingFor: 'approval', hostsAdded: ['status.vendor.test'] },
    ],
    [
      'held when it adds needs documents',
      { target: { needs: ['documents'] } },
      { action: 'hold', waitingFor: 'approval', needsAdded: ['documents'] },
    ],
    [
      'held when it adds webhook handling with the source in config',
      {
        config: { idSource: { header: 'x-id' } },
        target: { handles: { webhook: true, handoff: false, webhookExternalIdFromConfig: '/idSource' } },
      },
      { action: 'hold', handlesAdded: ['webhook'] },
    ],
    [
      'applied when the target handles webhooks from a config source the config does not hold',
      { target: { handles: { webhook: true, handoff: false, webhookExternalIdFromConfig: '/idSource' } } },
      { action: 'apply', handlesAdded: [] },
    ],
    [
      'held when it adds hand-off',
      { target: { handles: { webhook: false, handoff: true } } },
      { action: 'hold', handlesAdded: ['handoff'] },
    ],
    [
      'waits for config when the target refuses the config (with the issues; hosts not known)',
      { issues: [ISSUE], targetHosts: [] },
      { action: 'wait', waitingFor: 'config', issues: [ISSUE], hostsRemoved: [] },
    ],
    [
      'waits for secrets when a required secret is not stored',
      { missingSecrets: ['EU_TOKEN'] },
      { action: 'wait', waitingFor: 'secrets', missingSecrets: ['EU_TOKEN'] },
    ],
    [
      'waits for actions when a published workflow calls an action the target lacks',
      { calls: [workflow('screen', 'lookup')], target: lacking('lookup') },
      {
        action: 'wait',
        waitingFor: 'actions',
        missingActions: [
          { action: 'lookup', reason: 'absent', calledBy: [{ kind: 'workflow', key: 'flow', version: 2 }] },
        ],
      },
    ],
    [
      'waits for actions when a rule calls an action the target answers through a webhook',
      { calls: [ruleSet('screen')], target: { actions: [asynchronous('screen'), sync('lookup')] } },
      {
        action: 'wait',
        waitingFor: 'actions',
        missingActions: [
          {
            action: 'screen',
            reason: 'asynchronous',
            calledBy: [{ kind: 'rule_set', key: 'rules', version: 1 }],
          },
        ],
      },
    ],
    [
      'applied when a workflow step calls an action the target answers through a webhook',
      { calls: [workflow('screen')], target: { actions: [asynchronous('screen')] } },
      { action: 'apply', missingActions: [] },
    ],
    [
      'applied when the action a definition calls is one the running version does not answer either',
      { calls: [workflow('gone'), ruleSet('verify')], target: lacking('verify') },
      { action: 'apply', missingActions: [] },
    ],
    [
      'waits for approval while its own change for the target is open',
      {
        targetHosts: [VENDOR, 'new.vendor.test'],
        openChange: { origin: 'auto_upgrade', versionId: 'target' },
      },
      { action: 'wait', waitingFor: 'approval', supersedesOpenChange: false },
    ],
    [
      'waits for approval of its own change for the target even when a secret went missing since',
      { missingSecrets: ['API_KEY'], openChange: { origin: 'auto_upgrade', versionId: 'target' } },
      { action: 'wait', waitingFor: 'approval', missingSecrets: ['API_KEY'] },
    ],
    [
      'opens a new change, superseding its own for another version',
      {
        targetHosts: [VENDOR, 'new.vendor.test'],
        openChange: { origin: 'auto_upgrade', versionId: 'older' },
      },
      { action: 'hold', waitingFor: 'approval', supersedesOpenChange: true },
    ],
    [
      'applied, withdrawing its own change that no longer stands',
      { openChange: { origin: 'auto_upgrade', versionId: 'older' } },
      { action: 'apply', supersedesOpenChange: true },
    ],
    [
      'waits, withdrawing its own change for another version',
      { missingSecrets: ['API_KEY'], openChange: { origin: 'auto_upgrade', versionId: 'older' } },
      { action: 'wait', waitingFor: 'secrets', supersedesOpenChange: true },
    ],
    [
      'a saved change awaiting approval holds the move, whatever else',
      { missingSecrets: ['API_KEY'], issues: [ISSUE], openChange: { origin: 'save', versionId: 'target' } },
      { action: 'wait', waitingFor: 'approval', supersedesOpenChange: false },
    ],
    [
      'a rejected automatic upgrade to the target is not asked again',
      { declined: true, targetHosts: [VENDOR, 'new.vendor.test'] },
      { action: 'wait', waitingFor: 'declined' },
    ],
    ['config before secrets', { issues: [ISSUE], missingSecrets: ['API_KEY'] }, { waitingFor: 'config' }],
    [
      'secrets before actions',
      { missingSecrets: ['API_KEY'], calls: [workflow('lookup')], target: lacking('lookup') },
      { waitingFor: 'secrets' },
    ],
    [
      'actions before approval',
      { targetHosts: ['new.vendor.test'], calls: [workflow('lookup')], target: lacking('lookup') },
      { action: 'wait', waitingFor: 'actions' },
    ],
  ])('%s', (_sentence, over, expected) => {
    expect(decideMove(facts(over))).toMatchObject(expected);
  });

  it('reports what the move adds and drops whatever it waits for', () => {
    const decided = decideMove(
      facts({
        targetHosts: ['new.vendor.test'],
        missingSecrets: ['API_KEY'],
        target: { needs: ['documents'] },
      }),
    );
    expect(decided).toMatchObject({
      waitingFor: 'secrets',
      hostsAdded: ['new.vendor.test'],
      hostsRemoved: [VENDOR],
      needsAdded: ['documents'],
    });
  });
});

describe('missingActions', () => {
  it('names each action once per reason with every definition calling it, sorted', () => {
    const current = manifest();
    const target = { actions: [asynchronous('screen')] };
    expect(
      missingActions(current, target, [
        ruleSet('screen', 'lookup'),
        workflow('lookup', 'screen'),
        { kind: 'rule_set', key: 'more', version: 3, actions: ['lookup'] },
      ]),
    ).toEqual([
      {
        action: 'lookup',
        reason: 'absent',
        calledBy: [
          { kind: 'rule_set', key: 'rules', version: 1 },
          { kind: 'workflow', key: 'flow', version: 2 },
          { kind: 'rule_set', key: 'more', version: 3 },
        ],
      },
      {
        action: 'screen',
        reason: 'asynchronous',
        calledBy: [{ kind: 'rule_set', key: 'rules', version: 1 }],
      },
    ]);
  });
});
