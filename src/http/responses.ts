// What routes answer, as schemas: the one error body every route shares, and the helper a route uses to
// declare the error statuses it can answer. The OpenAPI description is generated from these, so a client
// generator or a fuzzer reads the same contract the handlers keep.
import { type TSchema, Type } from 'typebox';

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

/** The error statuses a route can answer, each with the shared error body: `{ ...errors(400, 404, 409) }`. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((status) => [status, Type.Ref('ErrorBody')]));
}
