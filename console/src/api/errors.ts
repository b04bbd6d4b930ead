// Every failure the console shows, as one sentence and the request id to quote: the platform's error body
// (`{ error: { code, message, details?, requestId } }`, the catalogue of docs/errors.md), a platform that
// could not be reached, or the console's own fault. Pure.
import type { components } from './schema.ts';

type ErrorBody = components['schemas']['ErrorBody'];

/** An answer of the platform that was not a success, read from its error body. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

/** The platform did not answer (network down, server gone). */
export class NetworkFailure extends Error {
  constructor() {
    super('The platform cannot be reached.');
    this.name = 'NetworkFailure';
  }
}

const isErrorBody = (body: unknown): body is ErrorBody => {
  const error = (body as ErrorBody | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
};

/** The failure an answer tells: its error body, else its status; the request id from body or header. */
export function failureOf(status: number, body: unknown, requestIdHeader: string | null): ApiFailure {
  if (isErrorBody(body)) {
    const { code, message, requestId, details } = body.error;
    return new ApiFailure(status, code, message, requestId ?? requestIdHeader, details);
  }
  return new ApiFailure(status, 'unexpected_answer', `the platform answered ${status}`, requestIdHeader);
}

/** A message of the platform as a sentence: capitalised, ending with a full stop. */
export function asSentence(message: string): string {
  const trimmed = message.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** What the console says of a failure: why first, in the platform's words where it gave some. */
const LEAD: Record<string, string> = {
  forbidden: 'You are not allowed to do this',
  unauthorized: 'Your session is no longer valid',
  not_found: 'Not found',
  rate_limited: 'Too many requests',
  service_unavailable: 'The platform is unavailable for a moment',
};

export interface Explained {
  sentence: string;
  requestId: string | null;
  code: string | null;
}

export function explain(error: unknown): Explained {
  if (error instanceof ApiFailure) {
    const lead = LEAD[error.code];
    const sentence = lead ? `${lead}: ${error.message.replace(/\.$/, '')}.` : asSentence(error.message);
    return { sentence, requestId: error.requestId, code: error.code };
  }
  if (error instanceof NetworkFailure) {
    return {
      sentence: 'The platform cannot be reached. Check your connection; the console retries.',
      requestId: null,
      code: null,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { sentence: asSentence(`the console failed: ${message}`), requestId: null, code: null };
}
