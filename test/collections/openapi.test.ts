// The collection submission routes as /openapi.json describes them: each operation named and summarized,
// its success with its schema, and the error codes each answers beyond the generic ones. The answers
// themselves are checked by the route tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
// biome-ignore lint/suspicious/noExplicitAny: the document is checked by assertions
let doc: any;
beforeAll(async () => {
  platform = await startTestPlatform();
  doc = await (await platform.fetch('/openapi.json', { token: null })).json();
});
afterAll(async () => platform?.close());

/** operationId, success status, and the declared error codes by status. */
const expected: Record<string, [string, string, Record<string, string[]>]> = {
  'post /collection-submissions': ['createCollectionSubmission', '201', { 404: ['not_found'] }],
  'get /collection-submissions/{id}': ['getCollectionSubmission', '200', { 404: ['not_found'] }],
  'post /collection-submissions/{id}/send': ['sendCollectionSubmission', '200', { 404: ['not_found'] }],
  'get /collection-submissions/{id}/status': [
    'getCollectionSubmissionStatus',
    '200',
    { 403: ['forbidden'], 404: ['not_found'] },
  ],
  'get /collection-submissions/{id}/handoff': [
    'handOffCollectionSubmission',
    '200',
    { 403: ['forbidden'], 404: ['not_found'], 409: ['handoff_unavailable'], 502: ['handoff_failed'] },
  ],
};

const operation = (key: string) => {
  const [method, path] = key.split(' ') as [string, string];
  return doc.paths[path]?.[method];
};

describe('the collection submission operations in /openapi.json', () => {
  it('each has its operationId, a summary, its success with a schema and its declared errors', () => {
    for (const [key, [operationId, success, failures]] of Object.entries(expected)) {
      const op = operation(key);
      expect(op, key).toBeDefined();
      expect(op.operationId, key).toBe(operationId);
      expect(op.summary, key).toEqual(expect.any(String));
      expect(op.responses[success].content['application/json'].schema, key).toBeDefined();
      for (const [status, codes] of Object.entries(failures)) {
        // The description names each code with its meaning (the list itself stays in the route's schema).
        for (const code of codes)
          expect(op.responses[status]?.description, `${key} ${status}`).toContain(`${code}: `);
      }
    }
  });

  it('takes the applicant’s routes with a token and no permission, the others under apps:read or apps:write', () => {
    for (const key of [
      'get /collection-submissions/{id}/status',
      'get /collection-submissions/{id}/handoff',
    ]) {
      expect(operation(key).security, key).toBeUndefined();
      expect(operation(key).responses['401'], key).toBeDefined();
    }
    expect(
      operation('post /collection-submissions').requestBody.content[
        'application/json'
      ].schema.required.sort(),
    ).toEqual(['subjectId', 'workflowRunId']);
  });

  it('answers the hand-off as a page or null, and the status with a hand-off flag', () => {
    const handoff = operation('get /collection-submissions/{id}/handoff').responses['200'].content[
      'application/json'
    ].schema;
    expect(handoff.required).toEqual(['handoff']);
    const status = operation('get /collection-submissions/{id}/status').responses['200'].content[
      'application/json'
    ].schema;
    expect(Object.keys(status.properties).sort()).toEqual(['handoff', 'id', 'status']);
  });
});
