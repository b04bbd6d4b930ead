// The pure rules of install changes (docs/install-changes.md): what a state reads and receives, what a
// change adds, and what an approval still applies (who may decide: test/approvals/four-eyes-rules.test.ts).
import { describe, expect, it } from 'vitest';
import {
  documentsMove,
  handlesAdded,
  needsAdded,
  readsDocuments,
  receivesWebhooks,
  withDocumentsOff,
} from '../../src/installs/capabilities.ts';
import {
  type ChangeRow,
  changeView,
  partAppliedAtOnce,
  sameHosts,
  versionApprovable,
} from '../../src/installs/changes/changes-rules.ts';
import type { Handles } from '../../src/module/manifest-types.ts';

const handles = (h: Partial<Handles> = {}): Handles => ({ webhook: false, handoff: false, ...h });
const manifest = (m: {
  needs?: 'documents'[];
  documentsFromConfig?: string;
  handles?: Partial<Handles>;
}) => ({
  needs: m.needs ?? [],
  ...(m.documentsFromConfig !== undefined && { documentsFromConfig: m.documentsFromConfig }),
  handles: handles(m.handles),
});
const always = manifest({ needs: ['documents'] });
const switched = manifest({ needs: ['documents'], documentsFromConfig: '/documents/on' });
const none = manifest({});

describe('readsDocuments', () => {
  it('is false for a version that does not need documents, whatever the config', () => {
    expect(readsDocuments(none, {})).toBe(false);
    expect(readsDocuments(none, { documents: { on: true } })).toBe(false);
  });

  it('is true for a version that needs documents without a switch', () => {
    expect(readsDocuments(always, {})).toBe(true);
  });

  it('with a switch, is true only while the config holds exactly true there', () => {
    expect(readsDocuments(switched, { documents: { on: true } })).toBe(true);
    for (const value of [false, 'true', 1, null, undefined, {}]) {
      expect(readsDocuments(switched, { documents: { on: value } }), String(value)).toBe(false);
    }
    expect(readsDocuments(switched, {})).toBe(false);
    expect(readsDocuments(switched, { documents: true })).toBe(false);
  });
});

describe('receivesWebhooks', () => {
  it('follows handles.webhook, and with the id source in config, needs one there', () => {
    expect(receivesWebhooks({ handles: handles() }, {})).toBe(false);
    expect(receivesWebhooks({ handles: handles({ webhook: true }) }, {})).toBe(true);
    const fromConfig = { handles: handles({ webhook: true, webhookExternalIdFromConfig: '/source' }) };
    expect(receivesWebhooks(fromConfig, {})).toBe(false);
    expect(receivesWebhooks(fromConfig, { source: { header: '' } })).toBe(false);
    expect(receivesWebhooks(fromConfig, { source: { header: 'x-id' } })).toBe(true);
    expect(receivesWebhooks(fromConfig, { source: { json: '/id' } })).toBe(true);
  });
});

describe('what a change adds', () => {
  it('needsAdded: documents when the asked state reads them and the current does not', () => {
    expect(needsAdded(null, { manifest: always, config: {} })).toEqual(['documents']);
    expect(needsAdded(null, { manifest: none, config: {} })).toEqual([]);
    const off = { manifest: switched, config: { documents: { on: false } } };
    const on = { manifest: switched, config: { documents: { on: true } } };
    expect(needsAdded(off, on)).toEqual(['documents']);
    expect(needsAdded(on, on)).toEqual([]);
    expect(needsAdded(on, off)).toEqual([]);
    expect(needsAdded({ manifest: always, config: {} }, on)).toEqual([]);
  });

  it('handlesAdded: everything for a new install, else only what the current state lacks', () => {
    const both = manifest({ handles: { webhook: true, handoff: true } });
    expect(handlesAdded(null, { manifest: both, config: {} })).toEqual(['webhook', 'handoff']);
    expect(handlesAdded(null, { manifest: none, config: {} })).toEqual([]);
    expect(handlesAdded({ manifest: both, config: {} }, { manifest: both, config: {} })).toEqual([]);
    const webhookOnly = manifest({ handles: { webhook: true } });
    expect(handlesAdded({ manifest: webhookOnly, config: {} }, { manifest: both, config: {} })).toEqual([
      'handoff',
    ]);
    // A webhook id source filled in by the config adds webhook handling.
    const fromConfig = manifest({ handles: { webhook: true, webhookExternalIdFromConfig: '/source' } });
    expect(
      handlesAdded(
        { manifest: fromConfig, config: {} },
        { manifest: fromConfig, config: { source: { query: 'id' } } },
      ),
    ).toEqual(['webhook']);
  });
});

describe('documentsMove', () => {
  const on = { manifest: switched, config: { documents: { on: true } } };
  const off = { manifest: switched, config: { documents: { on: false } } };
  it('names the move when reading documents starts or stops, else null', () => {
    expect(documentsMove(null, on)).toBe('enabled');
    expect(documentsMove(off, on)).toBe('enabled');
    expect(documentsMove(on, off)).toBe('disabled');
    expect(documentsMove(on, null)).toBe('disabled');
    expect(documentsMove(on, { manifest: always, config: {} })).toBeNull();
    expect(documentsMove(off, off)).toBeNull();
    expect(documentsMove(null, null)).toBeNull();
  });
});

describe('withDocumentsOff', () => {
  it('turns the switch off in a copy, leaving the rest of the config', () => {
    const config = { documents: { on: true, keep: 1 }, note: 'n' };
    expect(withDocumentsOff(switched, config)).toEqual({ documents: { on: false, keep: 1 }, note: 'n' });
    expect(config.documents.on).toBe(true);
  });

  it('answers null without a switch, or when the switch is not on', () => {
    expect(withDocumentsOff(always, {})).toBeNull();
    expect(withDocumentsOff(switched, { documents: { on: false } })).toBeNull();
    expect(withDocumentsOff(switched, {})).toBeNull();
  });

  it('follows array items and escaped pointer tokens', () => {
    expect(
      withDocumentsOff({ documentsFromConfig: '/list/1/a~1b' }, { list: [{}, { 'a/b': true }] }),
    ).toEqual({
      list: [{}, { 'a/b': false }],
    });
  });
});

describe('partAppliedAtOnce', () => {
  const current = { enabled: true, config: { documents: { on: true }, note: 'old' }, manifest: switched };
  it('switches off at once; switching on waits', () => {
    expect(partAppliedAtOnce(current, { ...current, enabled: false })).toEqual({
      enabled: false,
      config: current.config,
    });
    expect(partAppliedAtOnce({ ...current, enabled: false }, current).enabled).toBe(false);
  });

  it('stops documents through the current version’s switch, and changes nothing else of the config', () => {
    const asked = { enabled: true, config: { note: 'new' }, manifest: switched };
    expect(partAppliedAtOnce(current, asked)).toEqual({
      enabled: true,
      config: { documents: { on: false }, note: 'old' },
    });
    // The asked version reads no documents at all: the same.
    expect(partAppliedAtOnce(current, { ...asked, manifest: none }).config).toEqual({
      documents: { on: false },
      note: 'old',
    });
  });

  it('keeps documents while the asked state still reads them, or when the current version has no switch', () => {
    expect(partAppliedAtOnce(current, current).config).toBe(current.config);
    const noSwitch = { enabled: true, config: { note: 'old' }, manifest: always };
    expect(partAppliedAtOnce(noSwitch, { enabled: true, config: {}, manifest: none }).config).toBe(
      noSwitch.config,
    );
  });
});

describe('deciding', () => {
  it('a version applies when published, or withdrawn when the last automatic upgrade left it', () => {
    expect(versionApprovable({ id: 'v', status: 'published' }, { upgradedFromVersionId: null })).toBe(true);
    expect(versionApprovable({ id: 'v', status: 'withdrawn' }, { upgradedFromVersionId: null })).toBe(false);
    expect(versionApprovable({ id: 'v', status: 'withdrawn' }, { upgradedFromVersionId: 'v' })).toBe(true);
    expect(versionApprovable({ id: 'v', status: 'withdrawn' }, { upgradedFromVersionId: 'w' })).toBe(false);
    expect(versionApprovable({ id: 'v', status: 'uploaded' }, { upgradedFromVersionId: 'v' })).toBe(false);
  });

  it('compares hosts as sets', () => {
    expect(sameHosts(['a', 'b'], ['b', 'a'])).toBe(true);
    expect(sameHosts(['a'], ['a', 'b'])).toBe(false);
    expect(sameHosts([], [])).toBe(true);
  });
});

describe('changeView', () => {
  const row: ChangeRow = {
    id: 'c',
    tenantId: 't',
    installId: 'i',
    installName: 'old-name',
    versionId: 'v',
    config: { a: 1 },
    enabled: true,
    autoUpgrade: 'off',
    hosts: ['h'],
    hostsAdded: ['h'],
    origin: 'save',
    needsAdded: [],
    handlesAdded: ['webhook'],
    newInstall: false,
    installRevision: 3,
    installUpdatedAt: new Date('2026-01-01T00:00:00.000Z'),
    approvalRequired: true,
    fourEyes: true,
    requestedBy: 'user:ada',
    requestedByName: 'ada',
    requestedAt: new Date('2026-01-02T00:00:00.000Z'),
    comment: null,
    decidedBy: null,
    decidedAt: null,
    decision: null,
    decisionComment: null,
  };

  it('answers a change’s fields, with the install’s current name when it has one', () => {
    expect(changeView(row, 'new-name')).toEqual({
      id: 'c',
      tenantId: 't',
      installId: 'i',
      installName: 'new-name',
      versionId: 'v',
      config: { a: 1 },
      enabled: true,
      hosts: ['h'],
      hostsAdded: ['h'],
      origin: 'save',
      needsAdded: [],
      handlesAdded: ['webhook'],
      newInstall: false,
      installUpdatedAt: '2026-01-01T00:00:00.000Z',
      approvalSettings: { required: true, fourEyes: true },
      requestedBy: 'user:ada',
      requestedAt: '2026-01-02T00:00:00.000Z',
      comment: null,
      decidedBy: null,
      decidedAt: null,
      decision: null,
      decisionComment: null,
    });
    expect(changeView({ ...row, installId: null }).installName).toBe('old-name');
  });
});
