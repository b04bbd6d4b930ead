// Removing the install with its secrets, aliases, changes, limits and cached values (asked once more).
// While runs wait on its vendor sessions the platform refuses (409 install_in_use) naming them: the runs
// show as links, and removing anyway fails those sessions (force), asked once more again.
import { useNavigate } from 'react-router';
import { ApiFailure } from '../../api/errors.ts';
import { Confirm } from './Confirm.tsx';
import { Refusal } from './NamesSection.tsx';
import { useDeleteInstall } from './queries.ts';

export function DeleteSection({ name }: { name: string }) {
  const navigate = useNavigate();
  const remove = useDeleteInstall(name);
  const inUse = remove.error instanceof ApiFailure && remove.error.code === 'install_in_use';
  const done = { onSuccess: () => navigate('/apps/installs', { replace: true }) };
  return (
    <section aria-labelledby="delete-title" className="panel">
      <h2 id="delete-title">Remove the install</h2>
      <p className="hint">
        Its secrets, aliases, changes, limits and cached values go with it; its calls’ records and metering
        stay.
      </p>
      <Confirm
        label="Remove install"
        question={`Remove ${name}?`}
        confirm="Yes, remove it"
        pending={remove.isPending}
        danger
        onConfirm={() => remove.mutate(false, done)}
      />
      {remove.isError ? <Refusal error={remove.error} title="The install was not removed." /> : null}
      {inUse ? (
        <Confirm
          label="Remove anyway"
          question="Remove it and fail the vendor sessions those runs wait on?"
          confirm="Yes, fail them and remove it"
          pending={remove.isPending}
          danger
          onConfirm={() => remove.mutate(true, done)}
        />
      ) : null}
    </section>
  );
}
