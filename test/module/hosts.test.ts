import { describe, expect, it } from 'vitest';
import { hostStringProblem, parseHostString } from '../../src/module/hosts.ts';
import { pointerProblem, pointerTokens } from '../../src/module/names.ts';

describe('parseHostString', () => {
  it('reads names, wildcards, localhost and IPv4 addresses with an optional port', () => {
    expect(parseHostString('api.example.com')).toEqual({
      host: 'api.example.com',
      port: null,
      wildcard: false,
    });
    expect(parseHostString('*.example.com:8443')).toEqual({
      host: '*.example.com',
      port: 8443,
      wildcard: true,
    });
    expect(parseHostString('localhost:3000')).toEqual({ host: 'localhost', port: 3000, wildcard: false });
    expect(parseHostString('192.168.0.10')).toEqual({ host: '192.168.0.10', port: null, wildcard: false });
    for (const host of [
      'xn--bcher-kva.example',
      'a-b.c0.io',
      'vendor',
      'x.example.com:1',
      'x.example.com:65535',
    ]) {
      expect(hostStringProblem(host), host).toBeNull();
    }
  });

  it('refuses the scheme ports written out, ports out of range and other spellings', () => {
    const bad = [
      'api.example.com:443',
      'localhost:80',
      'api.example.com:0',
      'api.example.com:65536',
      'api.example.com:0443',
      'api.example.com:',
      'API.example.com',
      'https://api.example.com',
      'api.example.com/path',
      '1.2.3.999',
      '1.2.3',
      '01.2.3.4',
      '[::1]',
      '::1',
      '',
      'a..b',
      '-a.example.com',
      'a-.example.com',
      'a_b.example.com',
      '*.com',
      '*.localhost',
      'a.*.example.com',
      '*example.com',
      `${'a'.repeat(64)}.example.com`,
      ' api.example.com',
    ];
    for (const host of bad) expect(hostStringProblem(host), host).not.toBeNull();
  });

  it('takes at most 259 characters', () => {
    const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(domain).toHaveLength(253);
    expect(hostStringProblem(`${domain}:65535`)).toBeNull();
    expect(hostStringProblem(`${domain}:655350`)).toMatch(/259/);
    expect(hostStringProblem(`${domain}a`)).toMatch(/253/);
  });
});

describe('JSON Pointers', () => {
  it('unescapes ~1 and ~0 in their tokens', () => {
    expect(pointerTokens('/a~1b/~0c/0/')).toEqual(['a/b', '~c', '0', '']);
    expect(pointerProblem('/a~01')).toBeNull();
    expect(pointerProblem('a')).not.toBeNull();
  });
});
