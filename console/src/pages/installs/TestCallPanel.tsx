// A test call (POST …/test, apps:write): an action of the version, its input as JSON prefilled from the
// action's input schema, sent once with the install's config, secrets and hosts (enabled or not; no
// retries, no circuit, metered, no invocation record). The answer: status, duration, output or error,
// usage, the module's log lines, and what the platform redacted (secrets, credentials, cached values).
import { useId, useState } from 'react';
import { Failure } from '../../components/Failure.tsx';
import { JsonBlock } from '../../components/JsonBlock.tsx';
import { exampleFromSchema } from './example-from-schema.ts';
import type { InstallView } from './install-rules.ts';
import { useTestCall } from './queries.ts';

type Action = InstallView['version']['actions'][number];
const exampleText = (action: Action | undefined) =>
  JSON.stringify(exampleFromSchema(action?.inputSchema), null, 2);

export function TestCallPanel({ install }: { install: InstallView }) {
  const id = useId();
  const actions = install.version.actions;
  const [actionName, setActionName] = useState(actions[0]?.name ?? '');
  const action = actions.find((a) => a.name === actionName);
  const [input, setInput] = useState(() => exampleText(action));
  const [notJson, setNotJson] = useState(false);
  const call = useTestCall(install.name);

  const choose = (name: string) => {
    setActionName(name);
    setInput(exampleText(actions.find((a) => a.name === name)));
    setNotJson(false);
  };
  const send = (event: React.FormEvent) => {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(input);
    } catch {
      setNotJson(true);
      return;
    }
    setNotJson(false);
    call.mutate({ action: actionName, input: parsed });
  };

  return (
    <section aria-labelledby="test-call-title" className="panel">
      <h2 id="test-call-title">Test call</h2>
      <p className="hint">
        Calls the vendor once with this install’s config, secrets and approved hosts, enabled or not. It is
        metered, and no run records it.
      </p>
      <form onSubmit={send} noValidate>
        <div className="field">
          <label htmlFor={`${id}-action`}>Action</label>
          <select id={`${id}-action`} value={actionName} onChange={(event) => choose(event.target.value)}>
            {actions.map((a) => (
              <option key={a.name} value={a.name}>
                {a.name}
              </option>
            ))}
          </select>
          {action?.description ? <p className="hint">{action.description}</p> : null}
        </div>
        <div className="field">
          <label htmlFor={`${id}-input`}>Input (JSON)</label>
          <textarea
            id={`${id}-input`}
            className="json"
            rows={8}
            spellCheck={false}
            value={input}
            aria-invalid={notJson || undefined}
            aria-describedby={notJson ? `${id}-input-issue` : undefined}
            onChange={(event) => setInput(event.target.value)}
          />
          {notJson ? (
            <p className="field-issue" id={`${id}-input-issue`}>
              This is not valid JSON.
            </p>
          ) : null}
        </div>
        <button type="submit" disabled={call.isPending || !action}>
          {call.isPending ? 'Calling…' : 'Send test call'}
        </button>
      </form>
      {call.isError ? <Failure error={call.error} title="The test call was not made." /> : null}
      {call.data ? <TestAnswer answer={call.data} /> : null}
    </section>
  );
}

type Answer = NonNullable<ReturnType<typeof useTestCall>['data']>;

function TestAnswer({ answer }: { answer: Answer }) {
  return (
    <section aria-labelledby="test-answer-title" className="test-answer">
      <h3 id="test-answer-title">Answer</h3>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span
            className={answer.status === 'success' || answer.status === 'pending' ? 'tag' : 'tag tag-alert'}
          >
            {answer.status}
          </span>
        </dd>
        <dt>Duration</dt>
        <dd>{answer.durationMs} ms</dd>
        {answer.externalId !== undefined ? (
          <>
            <dt>Vendor’s id</dt>
            <dd>
              <code>{answer.externalId}</code>
              {answer.callbackTimeoutSeconds
                ? ` (webhook awaited up to ${answer.callbackTimeoutSeconds} s)`
                : ''}
            </dd>
          </>
        ) : null}
        <dt>Usage</dt>
        <dd>
          {answer.usage.httpRequests} HTTP requests ({answer.usage.reusedConnections} on reused connections),{' '}
          {answer.usage.documentReads} document reads, {answer.usage.logLines} log lines
          {answer.usage.ai
            ? `, ${answer.usage.ai.inputTokens} + ${answer.usage.ai.outputTokens} AI tokens`
            : ''}
        </dd>
      </dl>
      {answer.error ? (
        <div className="failure">
          <p className="failure-title">
            {answer.error.code} ({answer.error.reason})
          </p>
          <p>{answer.error.message}</p>
          {answer.error.details ? <JsonBlock text={JSON.stringify(answer.error.details, null, 2)} /> : null}
        </div>
      ) : null}
      {answer.output !== undefined ? (
        <>
          <h4>Output</h4>
          <JsonBlock text={JSON.stringify(answer.output, null, 2)} />
        </>
      ) : null}
      <h4>Redacted</h4>
      {answer.redacted.length === 0 ? (
        <p className="empty">Nothing was redacted.</p>
      ) : (
        <table>
          <caption>What the platform replaced before showing the answer</caption>
          <thead>
            <tr>
              <th scope="col">Placeholder</th>
              <th scope="col">Kind</th>
              <th scope="col">Name</th>
              <th scope="col">Found in</th>
            </tr>
          </thead>
          <tbody>
            {answer.redacted.map((r) => (
              <tr key={r.placeholder}>
                <td>
                  <code>{r.placeholder}</code>
                </td>
                <td>{r.kind}</td>
                <td>{r.name}</td>
                <td>{r.in.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h4>Log lines</h4>
      {answer.logs.length === 0 ? (
        <p className="empty">The module wrote none.</p>
      ) : (
        <ol className="logs">
          {answer.logs.map((line, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: log lines repeat; their order is their identity
            <li key={index}>
              <span className="meta">{line.level}</span> {line.message}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
