// The one mapping of a trail's row to the event answered (src/audit/trail.ts toAuditEvent), which the
// trail's readers and the activity feed share: the public id, never the internal sequence; ISO time.
import { describe, expect, it } from 'vitest';
import { toAuditEvent } from '../../src/audit/trail.ts';

describe('toAuditEvent', () => {
  it('answers the row as an event', () => {
    const row = {
      id: 41,
      publicId: '0b6f4b8e-3c8e-4d7e-9a59-1f0c8a0c2b10',
      tenantId: 't1',
      action: 'app.installed',
      actorType: 'user',
      actorId: 'user:ada',
      actorName: 'Ada',
      resourceType: 'app_install',
      resourceId: 'i1',
      data: { name: 'screening' },
      requestId: null,
      occurredAt: new Date('2026-03-01T10:00:00.000Z'),
    };
    expect(toAuditEvent(row)).toEqual({
      id: '0b6f4b8e-3c8e-4d7e-9a59-1f0c8a0c2b10',
      tenantId: 't1',
      action: 'app.installed',
      actor: { type: 'user', id: 'user:ada', name: 'Ada' },
      resource: { type: 'app_install', id: 'i1' },
      data: { name: 'screening' },
      requestId: null,
      occurredAt: '2026-03-01T10:00:00.000Z',
    });
  });
});
