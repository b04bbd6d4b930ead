// A JSON value the API answered, as text (never HTML): "[redacted]" marked as withheld, a value folded
// under its label so a table stays readable.

import { JsonBlock } from '../../components/JsonBlock.tsx';
import { isRedacted, jsonText } from './run-rules.ts';

export function JsonText({ label, value }: { label: string; value: unknown }) {
  if (isRedacted(value)) return <span className="redacted">[redacted]</span>;
  const text = jsonText(value);
  if (text === '') return <span className="meta">none</span>;
  return (
    <details>
      <summary>{label}</summary>
      <JsonBlock text={text} />
    </details>
  );
}
