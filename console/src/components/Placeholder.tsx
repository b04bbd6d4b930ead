// A page that is registered (its URL opens, deep links land) but not built yet.
export function Placeholder({ title, about }: { title: string; about: string }) {
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">{title}</h1>
      <p>{about}</p>
      <p className="empty">This page is not built yet.</p>
    </section>
  );
}
