// How the operator's commands print (docs/operations.md "The ops command"): JSON with --json, else aligned
// tables. Text a tenant wrote (names, comments, reasons) reaches an operator's terminal only escaped: a
// control character could move the cursor, recolour or clear the screen, and a bidirectional override
// could make a table lie about what it says. Pure: values in, text out.
import { C0_CONTROLS, UNSAFE_BEYOND_C0 } from '../unsafe-characters.ts';

/** Every character a terminal must not receive raw: the C0 controls and those above. */
const UNSAFE = new RegExp(`[${C0_CONTROLS}${UNSAFE_BEYOND_C0}]`, 'gu');
/** What JSON.stringify leaves raw: it escapes the C0 controls itself (its own line breaks are layout). */
const RAW_IN_JSON = new RegExp(`[${UNSAFE_BEYOND_C0}]`, 'gu');

const SHORT: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

/**
 * Text made safe for a terminal: every control and bidirectional character as an escape (\n, \t, \r, or
 * \u{XXXX}), and a backslash doubled so an escape printed cannot be mistaken for one written.
 */
export function escapeText(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(UNSAFE, (c) => SHORT[c] ?? `\\u{${c.codePointAt(0)?.toString(16)}}`);
}

/** A cell as printed: null and undefined as -, arrays joined with commas, everything escaped. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : escapeText(value.map(String).join(','));
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return escapeText(JSON.stringify(value));
  return escapeText(String(value));
}

export interface Column<Row> {
  header: string;
  value: (row: Row) => unknown;
}

/**
 * Rows as an aligned table: a header line, then one line per row, columns two spaces apart, the last
 * column not padded. Widths count code points (escaping leaves only printable characters).
 */
export function table<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const cells = rows.map((row) => columns.map((column) => cellText(column.value(row))));
  const widths = columns.map((column, i) =>
    Math.max([...column.header].length, ...cells.map((line) => [...(line[i] as string)].length)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, i) =>
        i === values.length - 1
          ? value
          : value.padEnd((widths[i] as number) + value.length - [...value].length),
      )
      .join('  ')
      .trimEnd();
  return `${[line(columns.map((c) => c.header)), ...cells.map(line)].join('\n')}\n`;
}

/** Labelled lines (one record): `label  value`, labels aligned. */
export function record(fields: readonly [label: string, value: unknown][]): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return `${fields.map(([label, value]) => `${label.padEnd(width)}  ${cellText(value)}`).join('\n')}\n`;
}

/**
 * JSON as printed with --json: two-space indented, one trailing newline, and as inert as a table: the
 * unsafe characters JSON.stringify leaves raw written as \uXXXX escapes (they occur only inside strings,
 * so the JSON reads back the same).
 */
export const json = (value: unknown): string =>
  `${JSON.stringify(value, null, 2).replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
