// How a failed app call reads in a run's, step's or rule's error (src/runs/call-error.ts), pure: the
// install, action, code and reason in the platform's words, never a word of the module's.
import { describe, expect, it } from 'vitest';
import { failedCallError, refusedCallError } from '../../src/runs/call-error.ts';

const called = { install: 'kyc', action: 'screen' };

describe('failedCallError', () => {
  it.each([
    ['app_call_failed', 'error', 'the app answered an error; its invocation record holds the reply'],
    ['validation_error', 'output', 'the app’s output does not match the action’s output schema'],
    [
      'app_call_failed',
      'contract',
      'the app answered what the action may not (pending when synchronous, ok when asynchronous)',
    ],
    ['app_call_failed', 'timeout', 'the call outlived its time'],
    ['app_call_failed', 'trapped', 'the module trapped'],
    ['app_call_failed', 'bad_output', 'the module answered something the module contract forbids'],
    ['app_call_failed', 'busy', 'the runner was at its concurrency limit'],
    ['app_call_failed', 'not_sent', 'no runner took the call'],
    ['app_call_failed', 'unreachable', 'the runner did not answer'],
    ['app_call_failed', 'module_unavailable', 'the runner could not fetch the module'],
    ['app_call_failed', 'module_not_found', 'the runner has no published module of that hash'],
    ['app_call_failed', 'internal', 'the runner failed'],
    ['app_call_failed', 'invalid_module', 'the call failed'],
  ] as const)('%s (%s): %s', (code, reason, why) => {
    expect(failedCallError(called, { code, reason })).toEqual({
      code,
      message: `install kyc, action screen: ${code} (${reason}): ${why}`,
      details: { reason },
    });
  });

  it('repeats no reason the runner could not have given', () => {
    for (const reason of ['the vendor said: Ada Lovelace', 'Error', '', 'x'.repeat(41)]) {
      expect(failedCallError(called, { code: 'app_call_failed', reason })).toEqual({
        code: 'app_call_failed',
        message: 'install kyc, action screen: app_call_failed (unknown): the call failed',
        details: { reason: 'unknown' },
      });
    }
  });
});

describe('refusedCallError', () => {
  it('keeps the platform’s refusal, its details, naming the install and action', () => {
    expect(
      refusedCallError(called, {
        code: 'install_not_configured',
        message: 'store the required secrets first: API_KEY',
        details: { missingSecrets: ['API_KEY'] },
      }),
    ).toEqual({
      code: 'install_not_configured',
      message:
        'install kyc, action screen: install_not_configured: store the required secrets first: API_KEY',
      details: { missingSecrets: ['API_KEY'] },
    });
    expect(refusedCallError(called, { code: 'unknown_install', message: 'no install named kyc' })).toEqual({
      code: 'unknown_install',
      message: 'install kyc, action screen: unknown_install: no install named kyc',
    });
  });
});
