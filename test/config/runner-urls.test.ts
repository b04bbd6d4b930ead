// APP_RUNNER_URL's list of runners: the parsing rule, and the setting refused naming it.
import { describe, expect, it } from 'vitest';
import { parseRunnerUrls } from '../../src/config/runner-urls.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('parseRunnerUrls', () => {
  it.each([
    ['http://runner:3002', ['http://runner:3002']],
    ['http://a:3002,http://b:3002', ['http://a:3002', 'http://b:3002']],
    [' http://a:3002/ , https://b.internal/runner/ ', ['http://a:3002', 'https://b.internal/runner']],
  ])('reads %s', (raw, urls) => {
    expect(parseRunnerUrls(raw)).toEqual({ ok: true, urls });
  });

  it.each([
    ['http://a:3002,', 'an empty item in the list'],
    [',http://a:3002', 'an empty item in the list'],
    ['http://a:3002,runner:3002', '"runner:3002" is not an http:// or https:// URL'],
    ['http://a:3002,ftp://b', '"ftp://b" is not an http:// or https:// URL'],
    ['http://a:3002,b:3002', '"b:3002" is not an http:// or https:// URL'],
    ['http://a:3002,http://u:p@b:3002', 'a runner URL carries credentials'],
    ['http://a:3002,http://b:3002/?x=1', '"http://b:3002…" has a query or fragment'],
    ['http://a:3002,http://a:3002/', '"http://a:3002" is listed twice'],
  ])('refuses %s: %s', (raw, problem) => {
    expect(parseRunnerUrls(raw)).toEqual({ ok: false, problem });
  });
});

describe('APP_RUNNER_URL in the settings', () => {
  const base = { DATABASE_URL: 'postgres://db/platform' };

  it('keeps one URL as given, a list normalised, off as none', () => {
    expect(loadConfig({ ...base, APP_RUNNER_URL: 'http://runner:3002/' }).runnerUrl).toBe(
      'http://runner:3002/',
    );
    expect(loadConfig({ ...base, APP_RUNNER_URL: 'http://a:3002/, http://b:3002' }).runnerUrl).toBe(
      'http://a:3002,http://b:3002',
    );
    expect(loadConfig({ ...base, APP_RUNNER_URL: 'off' }).runnerUrl).toBeNull();
  });

  it('refuses a bad list with a ConfigError naming the setting', () => {
    let error: unknown;
    try {
      loadConfig({ ...base, APP_RUNNER_URL: 'http://a:3002,,http://b:3002' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual(['APP_RUNNER_URL: an empty item in the list']);
  });
});
