// Assertions shared by the http and auth tests (not a test file itself).
import { expect, vi } from 'vitest';

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown>; requestId: string };
}

/**
 * Checks the one error body: exactly { error: { code, message, details?, requestId } },
 * requestId equal to the x-request-id header, served as JSON and not cached. Returns the body.
 */
export async function expectError(
  response: Response,
  status: number,
  code: string,
): Promise<ErrorBody['error']> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const body = JSON.parse(text) as ErrorBody;
  expect(Object.keys(body)).toEqual(['error']);
  const allowed = ['code', 'message', 'details', 'requestId'];
  expect(Object.keys(body.error).filter((key) => !allowed.includes(key))).toEqual([]);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  const header = response.headers.get('x-request-id');
  expect(header).toBeTruthy();
  expect(body.error.requestId).toBe(header);
  return body.error;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The log lines of one request. The line is written when the response has finished on the server,
 * which may be just after the client holds the response, so this waits for the first one to appear.
 */
export async function linesOf(logs: Record<string, unknown>[], requestId: string | null) {
  expect(requestId).toBeTruthy();
  return vi.waitFor(() => {
    const lines = logs.filter((line) => line.requestId === requestId);
    expect(lines.length).toBeGreaterThan(0);
    return lines;
  });
}
