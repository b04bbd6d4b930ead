// The values the install's module keeps between calls (GET …/cache): names, sizes and expiry, never a
// value; the budget they take; "Clear cached values" for apps:write (DELETE …/cache, asked once more).
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Table } from '../../components/Table.tsx';
import { When } from '../../components/When.tsx';
import { Confirm } from './Confirm.tsx';
import { useCache, useClearCache } from './queries.ts';

export function CacheSection({ name, canWrite }: { name: string; canWrite: boolean }) {
  const cache = useCache(name);
  const clear = useClearCache(name);
  const items = cache.data?.items ?? [];
  return (
    <section aria-labelledby="cache-title" className="panel">
      <h2 id="cache-title">Cached values</h2>
      {cache.isPending ? <Loading what="cached values" /> : null}
      {cache.isError ? <Failure error={cache.error} /> : null}
      {cache.data ? (
        <>
          <p className="hint">
            {cache.data.used.entries} of {cache.data.limits.entries} values,{' '}
            {cache.data.used.totalBytes.toLocaleString('en')} of{' '}
            {cache.data.limits.totalBytes.toLocaleString('en')} bytes. Values are sealed and never shown.
          </p>
          <Table
            caption="Live cached values, by name"
            columns={[
              { header: 'Name', cell: (row) => <code>{row.name}</code> },
              {
                header: 'Size',
                cell: (row) => `${row.sizeBytes.toLocaleString('en')} B`,
                className: 'numeric',
              },
              { header: 'Written', cell: (row) => <When at={row.updatedAt} /> },
              { header: 'Expires', cell: (row) => <When at={row.expiresAt} /> },
            ]}
            rows={items}
            rowKey={(row) => row.name}
            empty="The module keeps no value now."
          />
        </>
      ) : null}
      {canWrite ? (
        <Confirm
          label="Clear cached values"
          question={`Clear every cached value of ${name}? Calls running now keep none of theirs either.`}
          confirm="Yes, clear them"
          pending={clear.isPending}
          onConfirm={() => clear.mutate(undefined)}
        />
      ) : null}
      {clear.isSuccess ? <output className="status">Cleared {clear.data.entries} values.</output> : null}
      {clear.isError ? <Failure error={clear.error} title="The cached values were not cleared." /> : null}
    </section>
  );
}
