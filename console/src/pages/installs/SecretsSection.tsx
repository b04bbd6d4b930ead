// An install's secrets by name: each the version declares, whether it is stored, required or missing.
// Values are write-only: typed into a password field, sent once (POST …/secrets/:name), never shown back;
// the field empties once stored. Removing one asks first.
import { useId, useState } from 'react';
import { Failure } from '../../components/Failure.tsx';
import { Confirm } from './Confirm.tsx';
import type { InstallView } from './install-rules.ts';
import { useRemoveSecret, useStoreSecret } from './queries.ts';

/** Every secret the install may hold: declared by its version, required by its config, or stored. */
function secretNames(install: InstallView): { name: string; description: string | null }[] {
  const declared = install.version.secrets.map((s) => ({ name: s.name, description: s.description ?? null }));
  const more = [...install.requiredSecrets, ...install.storedSecrets]
    .filter((name) => !declared.some((d) => d.name === name))
    .map((name) => ({ name, description: null }));
  return [...declared, ...[...new Map(more.map((m) => [m.name, m])).values()]];
}

export function SecretsSection({ install, canWrite }: { install: InstallView; canWrite: boolean }) {
  const names = secretNames(install);
  return (
    <section aria-labelledby="secrets-title" className="panel">
      <h2 id="secrets-title">Secrets</h2>
      <p className="hint">Values are sealed when stored and never shown again.</p>
      {names.length === 0 ? <p className="empty">This version declares no secret.</p> : null}
      <ul className="items">
        {names.map((secret) => (
          <SecretItem key={secret.name} install={install} canWrite={canWrite} {...secret} />
        ))}
      </ul>
    </section>
  );
}

function SecretItem({
  install,
  canWrite,
  name,
  description,
}: {
  install: InstallView;
  canWrite: boolean;
  name: string;
  description: string | null;
}) {
  const id = useId();
  const [value, setValue] = useState('');
  const store = useStoreSecret(install.name);
  const remove = useRemoveSecret(install.name);
  const stored = install.storedSecrets.includes(name);
  const missing = install.missingSecrets.includes(name);
  const state = stored ? 'stored' : missing ? 'missing (required)' : 'not set';
  return (
    <li className="item secret">
      <div>
        <code>{name}</code>{' '}
        <span className={missing ? 'tag tag-alert' : stored ? 'tag' : 'tag tag-muted'}>{state}</span>
        {description ? <p className="hint">{description}</p> : null}
      </div>
      {canWrite ? (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            // Sent once and forgotten at once: the page keeps no value (a refused one is typed again).
            store.mutate({ secret: name, value });
            setValue('');
          }}
        >
          <label htmlFor={id}>{stored ? `New value for ${name}` : `Value for ${name}`}</label>
          <input
            id={id}
            type="password"
            autoComplete="new-password"
            value={value}
            onChange={(event) => setValue(event.target.value)}
          />
          <button type="submit" disabled={store.isPending || value === ''}>
            {stored ? 'Replace' : 'Store'}
            <span className="visually-hidden"> {name}</span>
          </button>
          {stored ? (
            <Confirm
              label={`Remove ${name}`}
              question={`Remove the stored ${name}?`}
              confirm="Yes, remove it"
              pending={remove.isPending}
              onConfirm={() => remove.mutate(name)}
            />
          ) : null}
        </form>
      ) : null}
      {store.isError ? <Failure error={store.error} title={`${name} was not stored.`} /> : null}
      {remove.isError ? <Failure error={remove.error} title={`${name} was not removed.`} /> : null}
    </li>
  );
}
