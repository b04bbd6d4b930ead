// The tenant's runs, newest first (GET /workflow-runs): filtered by status, workflow, subject and time, all
// in the URL, paged by the API's limit and offset (a long list is never read whole). Refreshed while a run
// on the page still moves.
import type { FormEvent } from 'react';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Paged } from '../../components/Paged.tsx';
import { Table } from '../../components/Table.tsx';
import { usePageParams } from '../../components/usePageParams.ts';
import { When } from '../../components/When.tsx';
import { useRuns } from './queries.ts';
import { runLinkColumn, startedColumn, statusColumn, workflowColumn } from './run-columns.tsx';
import {
  instantOfLocal,
  localOfInstant,
  RUN_STATUSES,
  type RunFilters,
  runFiltersOf,
  statusText,
} from './run-rules.ts';

type Run = NonNullable<ReturnType<typeof useRuns>['data']>['items'][number];

export default function RunsPage() {
  const page = usePageParams({ defaultLimit: 25, maxLimit: 100 });
  const filters = runFiltersOf(page.filter);
  const runs = useRuns({ ...filters, limit: page.limit, offset: page.offset });
  const items = runs.data?.items ?? [];
  return (
    <>
      <h1>Runs</h1>
      <RunFilterForm filters={filters} apply={page.setFilters} />
      <section aria-labelledby="runs-title" className="panel">
        <h2 id="runs-title">Workflow runs</h2>
        {runs.isPending ? <Loading what="runs" /> : null}
        {runs.isError ? <Failure error={runs.error} /> : null}
        {runs.data ? (
          <>
            <Table<Run>
              caption="Runs, newest first"
              rows={items}
              rowKey={(run) => run.id}
              empty="No run matches these filters."
              columns={[
                runLinkColumn,
                workflowColumn,
                { header: 'Subject', cell: (run) => run.subjectId },
                statusColumn,
                { header: 'Error', cell: (run) => run.error?.code ?? '' },
                startedColumn,
                { header: 'Ended', cell: (run) => (run.completedAt ? <When at={run.completedAt} /> : '') },
              ]}
            />
            <Paged
              page={page}
              shown={items.length}
              total={runs.data.total}
              totalIsEstimate={runs.data.totalIsEstimate}
              noun="runs"
            />
          </>
        ) : null}
      </section>
    </>
  );
}

/** The filters as a form: applied together (one request, one URL), cleared together. */
function RunFilterForm({
  filters,
  apply,
}: {
  filters: RunFilters;
  apply: (changes: Record<string, string | null>) => void;
}) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || null;
    apply({
      status: text('status'),
      workflow: text('workflow'),
      subjectId: text('subjectId'),
      from: instantOfLocal(text('from') ?? ''),
      to: instantOfLocal(text('to') ?? ''),
    });
  };
  const clear = () => apply({ status: null, workflow: null, subjectId: null, from: null, to: null });
  return (
    // Keyed by the filters, so the fields show the URL's values after a link, Back or Clear.
    <form className="filter-form" aria-label="Filter runs" onSubmit={submit} key={JSON.stringify(filters)}>
      <label>
        Status
        <select name="status" defaultValue={filters.status ?? ''}>
          <option value="">Any</option>
          {RUN_STATUSES.map((status) => (
            <option key={status} value={status}>
              {statusText(status)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Workflow
        <input name="workflow" defaultValue={filters.workflow ?? ''} placeholder="key" />
      </label>
      <label>
        Subject
        <input name="subjectId" defaultValue={filters.subjectId ?? ''} placeholder="subject id" />
      </label>
      <label>
        Started from
        <input name="from" type="datetime-local" defaultValue={localOfInstant(filters.from)} />
      </label>
      <label>
        Started before
        <input name="to" type="datetime-local" defaultValue={localOfInstant(filters.to)} />
      </label>
      <div className="filter-actions">
        <button type="submit">Apply filters</button>
        <button type="button" className="secondary" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  );
}
