// Secret placeholders: only {{secret:NAME:TAG}} with the call's tag is filled; the tag
// never goes out elsewhere; text without the tag is never altered.
import { describe, expect, it } from 'vitest';
import {
  bytesCarryTag,
  fillPlaceholders,
  type SecretSource,
} from '../../../src/runner/egress/placeholders.ts';
import { Redactor } from '../../../src/runner/redaction.ts';

const TAG = 'aB3-_xYz0123456789AbCd';

function source(): SecretSource {
  return {
    secretTag: TAG,
    secrets: new Map([
      ['API_KEY', 'sk-live-0123456789'],
      ['Token2', 'tok$&$1-value'],
    ]),
    redactor: new Redactor(),
  };
}

describe('fillPlaceholders', () => {
  it('fills the exact form with the call’s tag and registers each value', () => {
    const src = source();
    const result = fillPlaceholders(`key={{secret:API_KEY:${TAG}}}&t={{secret:Token2:${TAG}}}`, 'url', src);
    expect(result).toEqual({ ok: true, text: 'key=sk-live-0123456789&t=tok$&$1-value', filled: 2 });
    expect(src.redactor.apply('sk-live-0123456789 / tok$&$1-value')).toBe(
      '[secret:API_KEY] / [secret:Token2]',
    );
  });

  it('fills the same placeholder every time it appears', () => {
    const result = fillPlaceholders(`{{secret:API_KEY:${TAG}}}{{secret:API_KEY:${TAG}}}`, 'body', source());
    expect(result).toEqual({ ok: true, text: 'sk-live-0123456789sk-live-0123456789', filled: 2 });
  });

  it('leaves text without the tag as written, placeholders without tag included', () => {
    const src = source();
    for (const text of ['plain', '{{secret:API_KEY}}', '{{secret:API_KEY:someOtherTag12345678901}}', '']) {
      expect(fillPlaceholders(text, 'body', src)).toEqual({ ok: true, text, filled: 0 });
    }
    expect(src.redactor.apply('sk-live-0123456789')).toBe('sk-live-0123456789');
  });

  it('refuses the tag outside a placeholder, even next to a filled one', () => {
    const src = source();
    for (const text of [
      TAG,
      `x-${TAG}`,
      `{{secret:API_KEY:${TAG}}} and ${TAG}`,
      `{{secret:bad-name:${TAG}}}`,
      `{{secret:API_KEY:${TAG}}`,
      `{{ secret:API_KEY:${TAG} }}`,
      `{{SECRET:API_KEY:${TAG}}}`,
      `{{secret:1KEY:${TAG}}}`,
    ]) {
      const result = fillPlaceholders(text, 'header x-test', src);
      expect(result, text).toEqual({
        ok: false,
        error: "header x-test carries the call's secret tag outside a secret placeholder",
      });
    }
    expect(src.redactor.apply('sk-live-0123456789')).toBe('sk-live-0123456789');
  });

  it('refuses a name that is not a required secret, and fills nothing then', () => {
    const src = source();
    const result = fillPlaceholders(`{{secret:API_KEY:${TAG}}}{{secret:OTHER:${TAG}}}`, 'body', src);
    expect(result).toEqual({
      ok: false,
      error: 'body names secret OTHER, which is not a required secret of this install',
    });
    expect(src.redactor.apply('sk-live-0123456789')).toBe('sk-live-0123456789');
  });

  it('treats names case-sensitively', () => {
    const result = fillPlaceholders(`{{secret:api_key:${TAG}}}`, 'url', source());
    expect(result.ok).toBe(false);
  });
});

describe('bytesCarryTag', () => {
  it('finds the tag inside binary data', () => {
    expect(bytesCarryTag(Buffer.from(`\u0000\u00ff${TAG}\u0001`, 'latin1'), TAG)).toBe(true);
    expect(bytesCarryTag(new Uint8Array([0, 1, 2, 255]), TAG)).toBe(false);
    expect(bytesCarryTag(new Uint8Array(), TAG)).toBe(false);
  });
});
