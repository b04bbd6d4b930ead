// A route takes only the query parameters its schema names (src/http/validation.ts): the server closes
// every query schema in one place, so a route whose schema forgets `additionalProperties: false` refuses
// an unknown parameter like every other, and one that says it takes others still does.
import pino from 'pino';
import { Type } from 'typebox';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createServer } from '../../src/http/server.ts';

let app: Awaited<ReturnType<typeof createServer>>;
beforeAll(async () => {
  app = await createServer({ logger: pino({ level: 'silent' }) });
  const answer = async (request: { query: unknown }) => ({ query: request.query });
  const config = { public: true };
  app.get(
    '/forgetful',
    { config, schema: { querystring: Type.Object({ unread: Type.Optional(Type.Boolean()) }) } },
    answer,
  );
  app.get(
    '/open',
    {
      config,
      schema: {
        querystring: Type.Object({ unread: Type.Optional(Type.Boolean()) }, { additionalProperties: true }),
      },
    },
    answer,
  );
  app.get('/none', { config }, answer);
});
afterAll(async () => app?.close());

const get = (url: string) => app.inject({ method: 'GET', url });

it('refuses a parameter the schema does not name, even where the schema forgot to close itself', async () => {
  for (const url of ['/forgetful?bogus=1', '/forgetful?unread=true&bogus=1', '/none?bogus=1']) {
    const response = await get(url);
    expect(response.statusCode, url).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'validation_error',
      details: { issues: [{ path: 'query.bogus', message: 'unknown field' }] },
    });
  }
  expect((await get('/forgetful?unread=true')).json()).toEqual({ query: { unread: true } });
});

it('leaves a schema that says it takes other parameters as it says', async () => {
  expect((await get('/open?bogus=1')).json()).toEqual({ query: { bogus: '1' } });
});
