// A run's, step's or session's status as a word with its colour class (the word carries the meaning).
import { statusText } from './run-rules.ts';

export function RunStatus({ status }: { status: string }) {
  return <span className={`status status-${status}`}>{statusText(status)}</span>;
}
