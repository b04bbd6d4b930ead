// A moment as the reader's local time, with the exact instant in the element's datetime.
export function When({ at }: { at: string }) {
  const date = new Date(at);
  return (
    <time dateTime={at} title={date.toISOString()}>
      {date.toLocaleString()}
    </time>
  );
}
