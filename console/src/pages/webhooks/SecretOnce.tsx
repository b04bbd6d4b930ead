// A signing secret shown the one time the API answers it (on create and on rotation), with a copy
// button. It lives in this component's state only: not in the URL, the query cache or storage, so a
// reload or leaving the page forgets it, as the API does.
import { useState } from 'react';

type Copied = 'no' | 'yes' | 'failed';

export function SecretOnce({ secret, title, note }: { secret: string; title: string; note?: string }) {
  const [copied, setCopied] = useState<Copied>('no');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <section aria-labelledby="secret-title" className="panel webhook-secret">
      <h2 id="secret-title">{title}</h2>
      <p>
        <strong>Copy it now: it will not be shown again.</strong> Sign-check deliveries with it (the{' '}
        <code>X-Service-Signature</code> header).
      </p>
      {note ? <p>{note}</p> : null}
      <p className="webhook-secret-row">
        <span>Signing secret:</span> <code className="webhook-secret-value">{secret}</code>
        <button type="button" onClick={copy}>
          Copy secret
        </button>
      </p>
      <p aria-live="polite" className="meta">
        {copied === 'yes' ? 'Copied to the clipboard.' : null}
        {copied === 'failed' ? 'The browser refused to copy: select the secret and copy it by hand.' : null}
      </p>
    </section>
  );
}
