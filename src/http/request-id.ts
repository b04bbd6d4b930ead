import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const ACCEPTED = /^[A-Za-z0-9._-]{1,128}$/;

/** A caller's x-request-id when it is 1 to 128 of [A-Za-z0-9._-], else a new UUID. Pure but for the UUID. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && ACCEPTED.test(header) ? header : randomUUID();
}

export const genReqId = (req: IncomingMessage) => requestIdFor(req.headers['x-request-id']);
