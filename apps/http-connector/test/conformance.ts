// The `app test` setup of http-connector: a vendor double with a synchronous lookup and a job the
// vendor finishes later, announced by a webhook signed with the install's WEBHOOK_SECRET (scheme hmac).
import {
  type ConformanceSetup,
  signedWebhook,
  startVendorDouble,
} from '../../../packages/app-testing/src/index.ts';

export const WEBHOOK_SECRET = 'conformance-webhook-secret';

export default async function setup(): Promise<ConformanceSetup> {
  let jobs = 0;
  const vendor = await startVendorDouble([
    {
      method: 'GET',
      path: '/v1/things/:id',
      respond: (request) => ({
        json: {
          id: request.params.id,
          name: 'Thing',
          authorized: request.headers.authorization !== undefined,
        },
      }),
    },
    {
      method: 'POST',
      path: '/v1/jobs',
      respond: () => ({ status: 202, json: { id: `job_${++jobs}`, state: 'queued' } }),
    },
  ]);
  return {
    config: {
      baseUrl: vendor.url,
      headers: { accept: 'application/json' },
      auth: { type: 'bearer' },
      webhook: { scheme: 'hmac', signaturePrefix: 'sha256=', externalIdFrom: { json: '/jobId' } },
    },
    secrets: { TOKEN: 'conformance-token', WEBHOOK_SECRET },
    hosts: [vendor.host],
    samples: [
      { name: 'request: GET a thing', action: 'request', input: { method: 'GET', path: '/v1/things/t-1' } },
      {
        name: 'request_async: a job completed by a signed webhook',
        action: 'request_async',
        input: { method: 'POST', path: '/v1/jobs', body: { kind: 'report' } },
        webhook: (externalId: string) =>
          signedWebhook({
            secret: WEBHOOK_SECRET,
            prefix: 'sha256=',
            body: { jobId: externalId, status: 'succeeded', result: { pages: 3 } },
          }),
      },
    ],
    close: () => vendor.close(),
  };
}
