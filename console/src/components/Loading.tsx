export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" aria-busy="true">
      Loading {what}…
    </p>
  );
}
