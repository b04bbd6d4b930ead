// The operator's arguments as text, read into values, and the few values printed as text: pure, each a
// usage error (exit 2) when the text is not what the command takes.
import { nameProblem, versionProblem } from '../module/index.ts';
import { OpsUsageError } from './runtime.ts';

/** `<name>@<version>`: an app name and a semantic version. */
export function nameAtVersion(text: string): { name: string; version: string } {
  const at = text.indexOf('@');
  const name = at < 0 ? text : text.slice(0, at);
  const version = at < 0 ? '' : text.slice(at + 1);
  const problem =
    at < 0
      ? 'expected <name>@<version>, such as kyc-vendor@1.2.0'
      : nameProblem(name, 'module') === null
        ? versionProblem(version)
        : `the name: ${nameProblem(name, 'module')}`;
  if (problem) throw new OpsUsageError(`${text}: ${problem}`);
  return { name, version };
}

/** --month: YYYY-MM, months 01 to 12 (as GET /apps/metering takes it). */
export function monthArg(text: string): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(text))
    throw new OpsUsageError(`--month: expected YYYY-MM such as 2026-03, got "${text}"`);
  return text;
}

/** A quota's `<max>`: a non-negative integer, or `none` (remove it). */
export function quotaMax(text: string): number | 'none' {
  if (text === 'none') return 'none';
  const max = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(max))
    throw new OpsUsageError(`<max>: expected a non-negative integer or none, got "${text}"`);
  return max;
}

/** Micros of a currency as an amount: 2500000 EUR micros is `2.5 EUR`. */
export function amountText({ currency, micros }: { currency: string; micros: number }): string {
  const sign = micros < 0 ? '-' : '';
  const whole = Math.floor(Math.abs(micros) / 1_000_000);
  const fraction = String(Math.abs(micros) % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${sign}${whole}${fraction ? `.${fraction}` : ''} ${currency}`;
}

/** Spend per currency, one amount each (two currencies are never summed); `-` when nothing was charged. */
export const spendText = (spend: readonly { currency: string; micros: number }[] | undefined): string =>
  spend && spend.length > 0 ? spend.map(amountText).join(', ') : '-';
