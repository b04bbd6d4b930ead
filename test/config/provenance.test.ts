// Provenance settings (src/config/provenance.ts; docs/provenance.md "Settings"): parsed once, each
// problem naming its setting.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const CWD = '/srv/platform';
const pem = (curve: string) =>
  crypto
    .generateKeyPairSync('ec', { namedCurve: curve })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString();

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env, CWD);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('provenance settings', () => {
  it('default: no signers, the public-good root over TUF cached under DATA_DIR', () => {
    expect(loadConfig({ DATA_DIR: '/var/lib/platform' }, CWD).provenance).toEqual({
      signers: [],
      trustedRoots: null,
      tufCache: '/var/lib/platform/tuf-cache',
    });
  });

  it('reads keyless and key entries, root files and the cache', () => {
    const key = pem('prime256v1');
    const config = loadConfig(
      {
        APP_TRUSTED_SIGNERS: JSON.stringify([
          {
            name: 'acme-ci',
            issuer: 'https://token.actions.githubusercontent.com',
            identity: 'https://github.com/acme/**',
          },
          { name: 'release-key', publicKey: key },
        ]),
        APP_TRANSPARENCY_TRUSTED_ROOTS: '/etc/sigstore/a.json, /etc/sigstore/b.json',
        APP_TRANSPARENCY_TUF_CACHE: 'tuf',
      },
      CWD,
    );
    expect(config.provenance).toEqual({
      signers: [
        {
          name: 'acme-ci',
          issuer: 'https://token.actions.githubusercontent.com',
          identity: 'https://github.com/acme/**',
        },
        { name: 'release-key', publicKey: key, keyId: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) },
      ],
      trustedRoots: ['/etc/sigstore/a.json', '/etc/sigstore/b.json'],
      tufCache: '/srv/platform/tuf',
    });
  });

  it.each([
    [
      'not JSON',
      { APP_TRUSTED_SIGNERS: '[{' },
      'APP_TRUSTED_SIGNERS: expected a JSON array of trusted signers',
    ],
    [
      'not an array',
      { APP_TRUSTED_SIGNERS: '{}' },
      'APP_TRUSTED_SIGNERS: expected a JSON array of trusted signers',
    ],
    [
      'an entry without a name',
      { APP_TRUSTED_SIGNERS: '[{"issuer":"i","identity":"x"}]' },
      'APP_TRUSTED_SIGNERS[0]: expected a name',
    ],
    [
      'a keyless entry without identity',
      { APP_TRUSTED_SIGNERS: '[{"name":"a","issuer":"i"}]' },
      'APP_TRUSTED_SIGNERS[0]: expected issuer and identity, or publicKey',
    ],
    [
      'an unknown field',
      { APP_TRUSTED_SIGNERS: '[{"name":"a","issuer":"i","identity":"x","role":"y"}]' },
      'APP_TRUSTED_SIGNERS[0]: unknown field role',
    ],
    [
      'a key that is no PEM',
      { APP_TRUSTED_SIGNERS: '[{"name":"a","publicKey":"nope"}]' },
      'APP_TRUSTED_SIGNERS[0]: publicKey is not a PEM public key',
    ],
    [
      'a P-384 key',
      { APP_TRUSTED_SIGNERS: JSON.stringify([{ name: 'a', publicKey: pem('secp384r1') }]) },
      'APP_TRUSTED_SIGNERS[0]: publicKey must be an ECDSA P-256 key',
    ],
    [
      'a name used twice',
      {
        APP_TRUSTED_SIGNERS:
          '[{"name":"a","issuer":"i","identity":"x"},{"name":"a","issuer":"i","identity":"y"}]',
      },
      'APP_TRUSTED_SIGNERS[1]: the name "a" is used twice',
    ],
    [
      'a relative root path',
      { APP_TRANSPARENCY_TRUSTED_ROOTS: '/etc/a.json,roots/b.json' },
      'APP_TRANSPARENCY_TRUSTED_ROOTS: expected a comma list of absolute paths of trusted-root files, got "roots/b.json"',
    ],
  ])('%s: ConfigError naming the setting', (_case, env, problem) => {
    expect(problems(env)).toEqual([problem]);
  });
});
