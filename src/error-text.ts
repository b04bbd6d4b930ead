// Error text safe to print or log: never Drizzle's query parameters (a run's context, a vendor's output).
// Without imports, so a command's door can use it before loading anything else.

/**
 * Text without Drizzle's query parameters: its query errors read `Failed query: <sql>\nparams: <values>`,
 * and the values (a run's whole context, a vendor's output) run to the end of the message. Text that
 * quotes such a message (DBOS's retry lines, a stack) is cut there too: where the values end cannot be
 * told, so what follows them goes with them.
 */
export function withoutQueryParameters(text: string): string {
  const at = text.indexOf('\nparams: ');
  return at < 0 ? text : text.slice(0, at);
}

/**
 * The line a command prints for the error that ended it: its message without query parameters and, for
 * a wrapper such as Drizzle's "Failed query", its cause's own words and code (what went wrong: a unique
 * violation, a lost connection), which the wrapper's message leaves out.
 */
export function fatalErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const text = withoutQueryParameters(error.message);
  const cause = error.cause;
  if (!(cause instanceof Error)) return text;
  const code = (cause as { code?: unknown }).code;
  const said = withoutQueryParameters(cause.message);
  if (text.includes(said)) return text;
  return `${text}: ${said}${typeof code === 'string' ? ` (${code})` : ''}`;
}
