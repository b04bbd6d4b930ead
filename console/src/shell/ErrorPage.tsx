// What a page that failed shows instead of a white screen: the failure in a sentence and its request id.
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';
import { Failure } from '../components/Failure.tsx';

export function ErrorPage() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage />;
  return (
    <section aria-labelledby="error-title" className="error-page">
      <h1 id="error-title">This page failed</h1>
      <Failure error={error} />
      <p>
        <Link to="/">Go to Home</Link> or reload the page.
      </p>
    </section>
  );
}

export function NotFoundPage() {
  return (
    <section aria-labelledby="error-title" className="error-page">
      <h1 id="error-title">No such page</h1>
      <p>The console has no page at this address.</p>
      <p>
        <Link to="/">Go to Home</Link>
      </p>
    </section>
  );
}
