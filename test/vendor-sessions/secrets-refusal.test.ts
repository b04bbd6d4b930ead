// The one rule for an export (vendor webhook, hand-off) whose secrets cannot be opened
// (src/vendor-sessions/session-export.ts secretsRefusalOf): a reason for its own 502, never the call's codes.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.ts';
import { secretsRefusalOf } from '../../src/vendor-sessions/session-export.ts';

describe('secretsRefusalOf', () => {
  it.each([
    [
      'a required secret without a value: missing_secrets, naming them',
      new ApiError('install_not_configured', 'store them', { missingSecrets: ['A', 'B'] }),
      { reason: 'missing_secrets', details: { missingSecrets: ['A', 'B'] } },
    ],
    [
      'a refusal that names none still says missing_secrets',
      new ApiError('install_not_configured', 'store them'),
      { reason: 'missing_secrets', details: { missingSecrets: [] } },
    ],
    [
      'no secret store key: secret_store_unavailable',
      new ApiError('secret_store_unavailable', 'no key'),
      { reason: 'secret_store_unavailable', details: {} },
    ],
    ['another code is not a refusal of the secrets', new ApiError('app_blocked', 'blocked'), null],
    ['an error of the platform is not one either', new Error('connection reset'), null],
  ])('%s', (_case, error, refusal) => {
    expect(secretsRefusalOf(error)).toEqual(refusal);
  });
});
