// A failure as a sentence, with the request id to quote: an API refusal (403 included) or the platform out
// of reach, never a blank page.
import { explain } from '../api/errors.ts';

export function Failure({ error, title }: { error: unknown; title?: string }) {
  const { sentence, requestId } = explain(error);
  return (
    <div className="failure" role="alert">
      {title ? <p className="failure-title">{title}</p> : null}
      <p>{sentence}</p>
      {requestId ? (
        <p className="request-id">
          Request id: <code>{requestId}</code>
        </p>
      ) : null}
    </div>
  );
}
