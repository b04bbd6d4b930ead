// The one client of the platform's API, typed by the types generated from /openapi.json (schema.ts): a
// request the API does not take, or an answer read wrongly, fails the type check. Same origin: paths are
// the API's own. It adds the session's bearer token, notes whether the platform answered, and a 401 ends
// the session (the sign-in page then says why).
import createClient, { type Middleware } from 'openapi-fetch';
import { endSession, sessionToken } from '../auth/session.ts';
import { reportReachable, reportUnreachable } from './connection.ts';
import { failureOf, NetworkFailure } from './errors.ts';
import type { paths } from './schema.ts';

async function watchedFetch(request: Request): Promise<Response> {
  try {
    const response = await fetch(request);
    reportReachable();
    return response;
  } catch (error) {
    if (request.signal.aborted) throw error;
    reportUnreachable();
    throw new NetworkFailure();
  }
}

const bearer: Middleware = {
  onRequest({ request }) {
    const token = sessionToken();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
  async onResponse({ request, response }) {
    if (response.status === 401 && request.headers.has('authorization')) {
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => null);
      const failure = failureOf(401, body, response.headers.get('x-request-id'));
      endSession({ kind: 'refused', message: failure.message });
    }
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: '/', fetch: watchedFetch });
api.use(bearer);

export type Api = typeof api;
