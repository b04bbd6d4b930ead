// Digest answers checked against the worked examples of RFC 7616 §3.9.1 and RFC 2617 §3.5, and the
// challenge parser against headers as servers send them.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  chooseDigestChallenge,
  digestAuthorization,
  parseChallenges,
} from '../../../src/runner/egress/digest.ts';

const RFC7616 = (algorithm: string) =>
  `Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=${algorithm}, ` +
  'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"';

describe('parseChallenges', () => {
  it('reads several challenges from one value and from several values', () => {
    const challenges = parseChallenges([`${RFC7616('SHA-256')}, ${RFC7616('MD5')}`, 'Basic realm="simple"']);
    expect(challenges.map((c) => [c.scheme, c.params.algorithm])).toEqual([
      ['digest', 'SHA-256'],
      ['digest', 'MD5'],
      ['basic', undefined],
    ]);
    expect(challenges[0]?.params.qop).toBe('auth, auth-int');
    expect(challenges[2]?.params.realm).toBe('simple');
  });

  it('unescapes quoted strings and keeps commas inside them', () => {
    const [challenge] = parseChallenges('Digest realm="a \\"b\\", c", nonce=abc');
    expect(challenge?.params).toEqual({ realm: 'a "b", c', nonce: 'abc' });
  });

  it('answers nothing for nothing', () => {
    expect(parseChallenges(undefined)).toEqual([]);
    expect(parseChallenges('')).toEqual([]);
  });
});

describe('chooseDigestChallenge', () => {
  it('prefers SHA-256 and skips what it cannot answer', () => {
    const chosen = chooseDigestChallenge(parseChallenges([RFC7616('MD5'), RFC7616('SHA-256')]));
    expect(chosen?.params.algorithm).toBe('SHA-256');
    expect(chooseDigestChallenge(parseChallenges(RFC7616('SHA-512-256')))).toBeNull();
    expect(chooseDigestChallenge(parseChallenges('Digest realm="r", nonce="n", qop="auth-conf"'))).toBeNull();
    expect(chooseDigestChallenge(parseChallenges('Digest realm="r"'))).toBeNull();
    expect(chooseDigestChallenge(parseChallenges('Basic realm="r"'))).toBeNull();
  });
});

describe('digestAuthorization', () => {
  const input = (header: string) => ({
    challenge: chooseDigestChallenge(parseChallenges(header)) ?? { scheme: 'digest', params: {} },
    method: 'GET',
    uri: '/dir/index.html',
    username: 'Mufasa',
    password: 'Circle of Life',
    cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
  });

  it('matches RFC 7616 with MD5', () => {
    const answer = digestAuthorization(input(RFC7616('MD5')));
    expect(answer.response).toBe('8ca523f5e9506fed4657c9700eebdbec');
    expect(answer.header).toBe(
      'Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", algorithm=MD5, ' +
        'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc=00000001, ' +
        'cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", qop=auth, ' +
        'response="8ca523f5e9506fed4657c9700eebdbec", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"',
    );
  });

  it('matches RFC 7616 with SHA-256', () => {
    const answer = digestAuthorization(input(RFC7616('SHA-256')));
    expect(answer.response).toBe('753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
  });

  it('matches RFC 2617', () => {
    const answer = digestAuthorization({
      challenge: parseChallenges(
        'Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", ' +
          'opaque="5ccc069c403ebaf9f0171e9517f40e41"',
      )[0] ?? { scheme: 'digest', params: {} },
      method: 'GET',
      uri: '/dir/index.html',
      username: 'Mufasa',
      password: 'Circle Of Life',
      cnonce: '0a4f113b',
    });
    expect(answer.response).toBe('6629fae49393a05397450978507c4ef1');
  });

  it('draws a fresh client nonce each time', () => {
    const { cnonce: _fixed, ...rest } = input(RFC7616('SHA-256'));
    expect(digestAuthorization(rest).response).not.toBe(digestAuthorization(rest).response);
  });

  it('hashes the user name when the server asks for userhash', () => {
    const answer = digestAuthorization(input(`${RFC7616('SHA-256')}, userhash=true`));
    const hashed = createHash('sha256').update('Mufasa:http-auth@example.org').digest('hex');
    expect(answer.header).toContain(`username="${hashed}"`);
    expect(answer.header).toContain('userhash=true');
  });
});
