// A JSON value shown as indented text. The block scrolls when long, so it takes the keyboard's focus
// (tabIndex 0): a reader without a mouse scrolls it too.
import { jsonText } from './app-rules.ts';

export function JsonBlock({ value }: { value: unknown }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (axe: scrollable-region-focusable)
    <pre className="json" tabIndex={0}>
      {jsonText(value)}
    </pre>
  );
}
