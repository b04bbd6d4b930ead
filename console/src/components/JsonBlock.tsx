// JSON (or any preformatted text the API answered) shown as text in a block. The block scrolls when long,
// so it takes the keyboard's focus (tabIndex 0): a reader without a mouse scrolls it too (axe:
// scrollable-region-focusable). Every page shows JSON through this one block.
export function JsonBlock({ text, className = 'json' }: { text: string; className?: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
    <pre className={className} tabIndex={0}>
      {text}
    </pre>
  );
}
