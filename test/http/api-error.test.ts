// ApiError: a refusal carries no stack (nothing reads it, and capturing one cost more than the rest of a
// busy answer's error); a server error keeps its frames for the log line; the process's limit is left as
// it was.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.ts';

const frames = (error: Error) =>
  (error.stack ?? '').split('\n').filter((line) => line.trim().startsWith('at '));

describe('ApiError', () => {
  it.each([
    ['busy', 429],
    ['not_found', 404],
    ['validation_error', 400],
  ] as const)('%s (%i) is made without stack frames', (code, status) => {
    const error = new ApiError(code, 'refused');
    expect(error.statusCode).toBe(status);
    expect(frames(error)).toHaveLength(0);
    expect(error.message).toBe('refused');
  });

  it('keeps the frames of a server error; a framework refusal under its own 4xx status has none', () => {
    expect(frames(new ApiError('internal', 'internal error')).length).toBeGreaterThan(0);
    expect(frames(new ApiError('service_unavailable', 'away')).length).toBeGreaterThan(0);
    expect(frames(new ApiError('bad_request', 'odd', undefined, 400))).toHaveLength(0);
  });

  it("leaves the process's stack trace limit as it found it", () => {
    const before = Error.stackTraceLimit;
    new ApiError('busy', 'refused');
    new ApiError('internal', 'internal error');
    expect(Error.stackTraceLimit).toBe(before);
    expect(frames(new Error('plain')).length).toBeGreaterThan(0);
  });
});
