// What routes answer, as schemas: the one error body every route shares, and the helper a route uses to
// declare the error codes it can answer. The OpenAPI description is generated from these, so a client
// generator or a fuzzer reads the same contract the handlers keep.
import { type TSchema, Type } from 'typebox';
import { type ApiCode, isRunnerRelay, meaningOf, statusOf } from './error-codes.ts';

/** A field that may be null: `X | null`. */
export const nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) =>
  Type.Union([schema, Type.Null()], options);

/** An ISO 8601 date-time as answers write it. */
export const dateTime = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** `{ error: { code, message, details?, requestId } }`: every 4xx and 5xx answer. */
export const ErrorBody = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ description: 'A stable, machine-readable code, e.g. validation_error' }),
        message: Type.String({ description: 'A sentence for a person' }),
        details: Type.Optional(
          Type.Record(Type.String(), Type.Unknown(), {
            description: 'What the code needs to be acted on, e.g. issues with JSON Pointers',
          }),
        ),
        requestId: Type.String({ description: 'The X-Request-Id of the request' }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'ErrorBody', additionalProperties: false, title: 'Error' },
);

/** Where a route's declared error answer lists its codes, for the check of answered codes (declared-errors.ts). */
export const ERROR_CODES_KEY = 'x-error-codes';

/**
 * The error answers a route gives beyond the generic ones every route of its kind may (openapi-answers.ts),
 * by code: `{ ...errors('not_found', 'install_in_use') }`. Each status answers the shared error body; its
 * description names its codes with their meanings, and the list beside it is what the check reads.
 */
export function errors(...codes: ApiCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ApiCode[]>();
  for (const code of codes) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, named]) => [
      status,
      Type.Ref('ErrorBody', { description: describeCodes(named), [ERROR_CODES_KEY]: named }),
    ]),
  );
}

/** `code`: its meaning, for each code (the catalogue's sentence); the runner_<code> family in one part. */
export function describeCodes(codes: readonly ApiCode[]): string {
  const relayed = codes.filter(isRunnerRelay);
  const parts = codes.filter((code) => !isRunnerRelay(code)).map((code) => `${code}: ${meaningOf(code)}`);
  if (relayed.length > 0)
    parts.push(`runner_<code>: ${meaningOf(relayed[0] as ApiCode)} (${relayed.join(', ')})`);
  return parts.join('; ');
}
