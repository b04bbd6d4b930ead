// Whether an error answer's code is one its route declares (errors(...) in its response schema) or one
// every route may answer. The description promises clients only those codes; an undeclared one is a bug
// of the route's declaration, logged in production and answered as 500 in tests, so a test of the
// refusal fails until the route declares it.
import type { FastifyRequest } from 'fastify';
import type { ApiCode } from './error-codes.ts';
import { GENERIC_CODES } from './openapi-answers.ts';
import { ERROR_CODES_KEY } from './responses.ts';

/** Codes any route may answer without declaring them: those of the generic statuses. */
const ANY_ROUTE_MAY: ReadonlySet<ApiCode> = new Set(Object.values(GENERIC_CODES).flat());

type Declared = Record<string, { [ERROR_CODES_KEY]?: readonly string[] } | undefined>;

/** True when the route answering `request` neither declares `code` at `status` nor may answer it anyway. */
export function isUndeclared(request: FastifyRequest, status: number, code: ApiCode): boolean {
  if (ANY_ROUTE_MAY.has(code)) return false;
  // Requests no route takes (404 not_found, 405 method_not_allowed) are answered outside any route.
  if (request.is404) return false;
  const declared = (request.routeOptions?.schema?.response as Declared | undefined)?.[status]?.[
    ERROR_CODES_KEY
  ];
  return !declared?.includes(code);
}

/** In tests an undeclared code fails the request (vitest sets NODE_ENV=test); elsewhere it is logged. */
export const undeclaredFails = (): boolean => process.env.NODE_ENV === 'test';
