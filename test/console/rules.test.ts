// The console's pure rules, a row per sentence: what a token says, what it allows, the fragment's token,
// paging in the URL, a failure as a sentence, what a notification says and links to, and the sign-in link.
import { describe, expect, it } from 'vitest';
import { ApiFailure, explain, failureOf, NetworkFailure } from '../../console/src/api/errors.ts';
import { hasExpired, principalOf } from '../../console/src/auth/claims.ts';
import { tokenFromFragment } from '../../console/src/auth/fragment.ts';
import { can, permissionsOf } from '../../console/src/auth/permissions.ts';
import { pageOf, withParams } from '../../console/src/components/page-params.ts';
import { notificationHref, notificationText } from '../../console/src/pages/home/notification-rules.ts';
import { consoleLink } from '../../src/cli/console-link.ts';
import { UsageError } from '../../src/cli/usage.ts';

const jwt = (claims: Record<string, unknown>) =>
  `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;
const TENANT = '0190d5e2-0000-7000-8000-000000000001';

describe('a token’s principal', () => {
  it('reads tenant, subject, name, kind, roles, permissions and expiry; name falls back to sub', () => {
    expect(
      principalOf(jwt({ tenant: TENANT, sub: 'user:ana', name: 'Ana Ruiz', roles: ['admin'], exp: 100 })),
    ).toEqual({
      tenantId: TENANT,
      subject: 'user:ana',
      name: 'Ana Ruiz',
      kind: 'human',
      roles: ['admin'],
      granted: [],
      expiresAt: 100_000,
    });
    expect(principalOf(jwt({ tenant: TENANT, sub: 'user:ana' }))?.name).toBe('user:ana');
  });

  it.each([
    ['not a JWT', 'abc'],
    ['a payload that is not JSON', 'a.bm90IGpzb24.c'],
    ['no tenant', jwt({ sub: 'user:ana' })],
    ['roles not strings', jwt({ tenant: TENANT, sub: 'user:ana', roles: [1] })],
  ])('is none for %s', (_case, token) => {
    expect(principalOf(token)).toBeNull();
  });

  it('has expired at its exp, not before; a token without exp never', () => {
    const principal = principalOf(jwt({ tenant: TENANT, sub: 's', exp: 100 }));
    if (!principal) throw new Error('no principal');
    expect(hasExpired(principal, 99_999)).toBe(false);
    expect(hasExpired(principal, 100_000)).toBe(true);
    expect(hasExpired({ ...principal, expiresAt: null }, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});

describe('what a principal may do (the server’s role table, generated)', () => {
  const who = (roles: string[], granted: string[] = [], kind = 'human') => ({ roles, granted, kind });
  it.each([
    ['an admin writes apps', who(['admin']), 'apps:write', true],
    ['an analyst reads apps', who(['analyst']), 'apps:read', true],
    ['an analyst writes no apps', who(['analyst']), 'apps:write', false],
    ['a permission granted by name counts', who(['analyst'], ['webhooks:read']), 'webhooks:read', true],
    ['an unknown role holds nothing', who(['constructor']), 'apps:read', false],
    [
      'an applicant holds nothing, whatever its claims',
      who(['admin'], ['apps:read'], 'applicant'),
      'apps:read',
      false,
    ],
  ] as const)('%s', (_case, principal, permission, allowed) => {
    expect(can(principal, permission)).toBe(allowed);
  });

  it('ignores a granted name that is no permission', () => {
    expect([...permissionsOf(who([], ['root', 'ops:read']))]).toEqual(['ops:read']);
  });
});

describe('the sign-in link’s fragment', () => {
  it.each([
    ['#token=aaa.bbb.ccc', 'aaa.bbb.ccc'],
    ['#token=aaa.bbb.ccc&other=1', 'aaa.bbb.ccc'],
    ['', null],
    ['#other=1', null],
    ['#token=<script>', null],
  ])('%s holds %s', (hash, token) => {
    expect(tokenFromFragment(hash)).toBe(token);
  });

  it('is printed by `platform console` after the page to land on, and the page must be a console path', () => {
    expect(consoleLink('http://127.0.0.1:3000', 'a.b.c')).toBe('http://127.0.0.1:3000/console/#token=a.b.c');
    expect(consoleLink('http://h', 'a.b.c', '/runs/1')).toBe('http://h/console/runs/1#token=a.b.c');
    for (const page of ['runs', '//evil.example', '/runs#x', '/a b']) {
      expect(() => consoleLink('http://h', 'a.b.c', page)).toThrow(UsageError);
    }
  });
});

describe('paging in the URL', () => {
  const bounds = { defaultLimit: 20, maxLimit: 100 };
  it.each([
    ['', { limit: 20, offset: 0 }],
    ['limit=50&offset=100', { limit: 50, offset: 100 }],
    ['limit=500', { limit: 100, offset: 0 }],
    ['limit=0', { limit: 1, offset: 0 }],
    ['limit=abc&offset=-3', { limit: 20, offset: 0 }],
  ])('?%s reads as %j', (search, page) => {
    expect(pageOf(new URLSearchParams(search), bounds)).toEqual(page);
  });

  it('reads a prefixed list’s own names, and a change keeps the other parameters', () => {
    const params = new URLSearchParams('notifications.limit=5&notifications.offset=10&status=running');
    expect(pageOf(params, bounds, 'notifications')).toEqual({ limit: 5, offset: 10 });
    expect(withParams(params, { 'notifications.offset': null, status: 'failed' }).toString()).toBe(
      'notifications.limit=5&status=failed',
    );
  });
});

describe('a failure as a sentence', () => {
  it.each([
    [
      'a refusal, with its lead and request id',
      failureOf(
        403,
        {
          error: {
            code: 'forbidden',
            message: 'this route needs the apps:write permission',
            requestId: 'r-1',
          },
        },
        'h',
      ),
      {
        sentence: 'You are not allowed to do this: this route needs the apps:write permission.',
        requestId: 'r-1',
        code: 'forbidden',
      },
    ],
    [
      'another code, in the platform’s words',
      failureOf(
        409,
        { error: { code: 'install_in_use', message: 'install kyc is in use', requestId: 'r-2' } },
        null,
      ),
      { sentence: 'Install kyc is in use.', requestId: 'r-2', code: 'install_in_use' },
    ],
    [
      'an answer without the error body, with the header’s request id',
      failureOf(502, '<html>', 'r-3'),
      { sentence: 'The platform answered 502.', requestId: 'r-3', code: 'unexpected_answer' },
    ],
    [
      'a platform out of reach',
      new NetworkFailure(),
      {
        sentence: 'The platform cannot be reached. Check your connection; the console retries.',
        requestId: null,
        code: null,
      },
    ],
    [
      'the console’s own fault',
      new TypeError('x is undefined'),
      { sentence: 'The console failed: x is undefined.', requestId: null, code: null },
    ],
  ])('%s', (_case, error, explained) => {
    expect(explain(error)).toEqual(explained);
  });

  it('keeps status and details', () => {
    const failure = failureOf(
      400,
      { error: { code: 'validation_error', message: 'bad', requestId: 'r', details: { issues: [] } } },
      null,
    );
    expect(failure).toBeInstanceOf(ApiFailure);
    expect([failure.status, failure.details]).toEqual([400, { issues: [] }]);
  });
});

describe('a notification', () => {
  const n = (kind: string, type: string, data: Record<string, unknown>, id = 'res-1') => ({
    kind,
    resource: { type, id },
    data,
  });
  it.each([
    [
      n('approval_requested', 'app_install', { name: 'kyc', changeId: 'c-1', requestedBy: 'Ana' }),
      'Ana asked to change install kyc; it waits for approval',
      '/apps/installs/kyc/changes/c-1',
    ],
    [
      n('approval_requested', 'app_version', { name: 'screening', version: '1.2.0', requestedBy: 'Ana' }),
      'Ana asked to publish screening 1.2.0; it waits for approval',
      '/apps/approvals',
    ],
    [
      n(
        'approval_requested',
        'definition_approval',
        { kind: 'rule_set', key: 'adult', version: 2, requestedBy: 'Ana' },
        'a-1',
      ),
      'Ana asked to publish rule set adult version 2; it waits for approval',
      '/approvals/definitions/a-1',
    ],
    [
      n(
        'approval_decided',
        'definition_approval',
        { kind: 'workflow', key: 'onboarding', version: 3, decision: 'approved', decidedBy: 'Bo' },
        'a-2',
      ),
      'Bo approved workflow onboarding version 3',
      '/approvals/definitions/a-2',
    ],
    [
      n('install_change_pending', 'app_install', {
        name: 'kyc',
        changeId: 'c-2',
        origin: 'auto_upgrade',
        appName: 'idv',
        version: '1.3.0',
      }),
      'An upgrade of install kyc to idv 1.3.0 waits for approval',
      '/apps/installs/kyc/changes/c-2',
    ],
    [
      n('app_upgraded', 'app_install', {
        name: 'kyc',
        appName: 'idv',
        fromVersion: '1.0.0',
        toVersion: '1.1.0',
        automatic: true,
      }),
      'Install kyc moved from idv 1.0.0 to 1.1.0 (automatic upgrade)',
      '/apps/installs/kyc',
    ],
    [
      n('app_degraded', 'app_install', { install: 'kyc', failures: 5 }),
      'Install kyc stopped calling its vendor after 5 failures (circuit open)',
      '/apps/installs/kyc',
    ],
    [
      n('app_quota_exceeded', 'app_install', { install: 'a/b', period: 'month', max: 100, metric: 'calls' }),
      'Install a/b reached its month limit of 100 calls',
      '/apps/installs/a%2Fb',
    ],
    [
      n('webhook_endpoint_failing', 'webhook_endpoint', { event: 'run.completed' }, 'e-1'),
      'A webhook endpoint is failing: a run.completed delivery was given up after five attempts',
      '/webhooks/endpoints/e-1',
    ],
    [n('something_new', 'thing', {}), 'something new (thing)', null],
    [
      n('approval_requested', 'app_install', { name: { html: '<b>' }, changeId: 'c', requestedBy: ['x'] }),
      'Someone asked to change install ; it waits for approval',
      null,
    ],
  ])('%j says %j and links to %j', (notification, text, href) => {
    expect(notificationText(notification)).toBe(text);
    expect(notificationHref(notification)).toBe(href);
  });
});
