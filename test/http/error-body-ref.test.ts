// A route declares its error answers with errors(...) (a reference to the shared ErrorBody): every server
// createServer builds resolves it, and serialises the error answer with it.
import pino from 'pino';
import { Type } from 'typebox';
import { afterAll, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.ts';
import { errors } from '../../src/http/responses.ts';
import { createServer } from '../../src/http/server.ts';

const servers: { close(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

it.each([
  ['a server without the description (internal listener, runner)', false],
  ['the described public server', true],
])('%s resolves errors(404) and answers the error body through it', async (_name, openApi) => {
  const app = await createServer({ logger: pino({ level: 'silent' }), openApi });
  servers.push(app);
  app.get(
    '/things/:id',
    {
      config: { public: true },
      schema: { response: { 200: Type.Object({ id: Type.String() }), ...errors('unknown_install') } },
    },
    async () => {
      throw new ApiError('unknown_install', 'no such thing', { id: 'x' });
    },
  );
  const response = await app.inject({ method: 'GET', url: '/things/x' });
  expect(response.statusCode).toBe(404);
  expect(response.json()).toEqual({
    error: {
      code: 'unknown_install',
      message: 'no such thing',
      details: { id: 'x' },
      requestId: expect.any(String),
    },
  });
});
