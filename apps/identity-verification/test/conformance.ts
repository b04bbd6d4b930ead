// The conformance setup `app test apps/identity-verification` reads, and the vendor double the test
// suite shares: a sessions API keeping its sessions in memory, webhooks signed with x-idv-signature.
import {
  type ConformanceSetup,
  signedWebhook,
  startVendorDouble,
  type VendorAnswer,
  type VendorDouble,
  type VendorRequest,
} from '../../../packages/app-testing/src/index.ts';

export const API_KEY = 'idv-live-key-83bd02';
export const WEBHOOK_SECRET = 'whsec-idv-test-41a7';
export const EXPIRES_AT = '2030-01-01T12:00:00Z';

export interface IdvSession {
  id: string;
  status: string;
  request: Record<string, unknown>;
}

export interface IdvDouble extends VendorDouble {
  sessions: Map<string, IdvSession>;
  /** Answers the next POST /v1/sessions instead of opening a session. */
  failNext(answer: VendorAnswer | null): void;
}

/** A verification API double: POST /v1/sessions opens a session, GET /v1/sessions/:id answers its page. */
export async function startIdvDouble(): Promise<IdvDouble> {
  const sessions = new Map<string, IdvSession>();
  let failure: VendorAnswer | null = null;
  let base = '';
  const open = (request: VendorRequest): VendorAnswer => {
    if (failure) {
      const answer = failure;
      failure = null;
      return answer;
    }
    const id = `sess_${sessions.size + 1}`;
    sessions.set(id, { id, status: 'pending', request: JSON.parse(request.body) as Record<string, unknown> });
    return {
      status: 201,
      json: { id, status: 'pending', url: `${base}/hosted/${id}`, expiresAt: EXPIRES_AT },
    };
  };
  const page = (request: VendorRequest): VendorAnswer => {
    const session = sessions.get(request.params.id ?? '');
    if (!session) return { status: 404, json: { message: 'no such session' } };
    const redirect = request.query.redirectUrl;
    const url = `${base}/hosted/${session.id}${redirect ? `?redirect=${encodeURIComponent(redirect)}` : ''}`;
    return { json: { id: session.id, status: session.status, url, expiresAt: EXPIRES_AT } };
  };
  const vendor = await startVendorDouble([
    { method: 'POST', path: '/v1/sessions', respond: open },
    { method: 'GET', path: '/v1/sessions/:id', respond: page },
  ]);
  base = vendor.url;
  return Object.assign(vendor, {
    sessions,
    failNext: (answer: VendorAnswer | null) => {
      failure = answer;
    },
  });
}

/** The vendor's decision webhook for a session, signed as the vendor signs it. */
export function decisionWebhook(body: Record<string, unknown>, secret = WEBHOOK_SECRET) {
  return signedWebhook({ secret, header: 'x-idv-signature', body });
}

export default async function setup(): Promise<ConformanceSetup> {
  const vendor = await startIdvDouble();
  return {
    config: { baseUrl: vendor.url, documentsEnabled: true },
    secrets: { API_KEY, WEBHOOK_SECRET },
    documents: {
      'doc-passport': {
        name: 'passport.jpg',
        contentType: 'image/jpeg',
        body: new Uint8Array([0xff, 0xd8, 0xff]),
      },
    },
    samples: [
      {
        name: 'verification approved (vendor event id)',
        action: 'start_verification',
        input: {
          subjectId: 'subj-1',
          firstName: 'Ada',
          lastName: 'Lovelace',
          email: 'ada@example.com',
          country: 'GB',
        },
        webhook: (sessionId) =>
          decisionWebhook({
            sessionId,
            eventId: `evt_${sessionId}_decided`,
            status: 'approved',
            decision: 'approved',
            reasons: [],
          }),
      },
      {
        name: 'verification declined with a document (default event id)',
        action: 'start_verification',
        input: { firstName: 'Grace', lastName: 'Hopper', documentIds: ['doc-passport'] },
        webhook: (sessionId) =>
          decisionWebhook({
            sessionId,
            status: 'declined',
            decision: 'declined',
            reasons: ['document_expired'],
          }),
      },
    ],
    close: () => vendor.close(),
  };
}
