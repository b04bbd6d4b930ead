// A version's manifest, readable: its actions (each with its input and output schemas), its configuration
// schema, the hosts it may call, the secrets it needs, and its limits. JSON stays JSON, in a <pre>.

import { JsonBlock } from '../../components/JsonBlock.tsx';
import { type AppVersion, durationText, jsonText, listText } from './app-rules.ts';

type Action = AppVersion['actions'][number];

export function Manifest({ version }: { version: AppVersion }) {
  return (
    <>
      <section aria-labelledby="actions-title" className="panel">
        <h2 id="actions-title">Actions</h2>
        {version.actions.length === 0 ? <p className="empty">This version declares no actions.</p> : null}
        {version.actions.map((action) => (
          <ActionDetails key={action.name} action={action} />
        ))}
      </section>
      <section aria-labelledby="config-title" className="panel">
        <h2 id="config-title">Configuration schema</h2>
        <p className="meta">What an install's configuration must be (JSON Schema).</p>
        <JsonBlock text={jsonText(version.configSchema)} />
      </section>
      <section aria-labelledby="access-title" className="panel">
        <h2 id="access-title">Hosts and secrets</h2>
        <dl className="facts">
          <dt>Hosts it may call</dt>
          <dd>{listText(version.hosts)}</dd>
          <dt>Hosts taken from the configuration</dt>
          <dd>{listText(version.hostsFromConfig)}</dd>
          <dt>Secrets</dt>
          <dd>
            {version.secrets.length === 0 ? (
              'none'
            ) : (
              <ul className="plain">
                {version.secrets.map((secret) => (
                  <li key={secret.name}>
                    <code>{secret.name}</code>
                    {secret.description ? ` — ${secret.description}` : null}
                    {secret.requiredWhen ? (
                      <span className="meta"> (required only for some configurations)</span>
                    ) : null}
                  </li>
                ))}
              </ul>
            )}
          </dd>
          <dt>Receives vendor webhooks</dt>
          <dd>{version.handles.webhook ? 'yes' : 'no'}</dd>
          <dt>Hands off to the applicant</dt>
          <dd>{version.handles.handoff ? 'yes' : 'no'}</dd>
          <dt>Needs</dt>
          <dd>{listText(version.needs)}</dd>
          <dt>Capabilities</dt>
          <dd>{listText(version.capabilities)}</dd>
        </dl>
      </section>
      <section aria-labelledby="limits-title" className="panel">
        <h2 id="limits-title">Limits</h2>
        <dl className="facts">
          <dt>Memory</dt>
          <dd>{version.memoryMiB} MiB</dd>
          <dt>Module size</dt>
          <dd>{version.sizeBytes.toLocaleString()} bytes</dd>
          {version.actions.map((action) => (
            <LimitFacts key={action.name} action={action} />
          ))}
        </dl>
      </section>
    </>
  );
}

function ActionDetails({ action }: { action: Action }) {
  return (
    <details className="action" open>
      <summary>
        <code>{action.name}</code>
        {action.description ? ` — ${action.description}` : null}
        {action.async ? <span className="meta"> (waits on a vendor session)</span> : null}
      </summary>
      <h3>Input schema</h3>
      <JsonBlock text={jsonText(action.inputSchema)} />
      <h3>Output schema</h3>
      <JsonBlock text={jsonText(action.outputSchema)} />
      {action.mappable?.length ? <p>Mappable input fields: {listText(action.mappable)}</p> : null}
    </details>
  );
}

function LimitFacts({ action }: { action: Action }) {
  const retry = action.retry
    ? `${action.retry.maxAttempts} attempts, ${durationText(action.retry.backoffMs)} apart`
    : 'no retry';
  return (
    <>
      <dt>
        <code>{action.name}</code>
      </dt>
      <dd>
        times out after {durationText(action.timeoutMs)}; {retry}
        {action.idempotent ? '; idempotent' : ''}
        {action.async
          ? `; vendor session up to ${durationText(action.async.callbackTimeoutSeconds * 1_000)}`
          : ''}
      </dd>
    </>
  );
}
