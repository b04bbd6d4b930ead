// The latest other runs on the run's subject (GET /workflow-runs?subjectId), with a link to them all.
import { Link } from 'react-router';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { Table } from '../../components/Table.tsx';
import { useRelatedRuns } from './queries.ts';
import { runLinkColumn, startedColumn, statusColumn, workflowColumn } from './run-columns.tsx';

type Run = NonNullable<ReturnType<typeof useRelatedRuns>['data']>['items'][number];

export function RelatedRuns({ runId, subjectId }: { runId: string; subjectId: string }) {
  const related = useRelatedRuns(subjectId);
  const others = (related.data?.items ?? []).filter((run) => run.id !== runId).slice(0, 10);
  const more = (related.data?.total ?? 0) - 1 > others.length;
  return (
    <section aria-labelledby="related-title" className="panel">
      <h2 id="related-title">Other runs on this subject</h2>
      {related.isPending ? <Loading what="the related runs" /> : null}
      {related.isError ? <Failure error={related.error} /> : null}
      {related.data ? (
        <Table<Run>
          caption="The latest other runs on the same subject"
          rows={others}
          rowKey={(run) => run.id}
          empty="No other run on this subject."
          columns={[runLinkColumn, workflowColumn, statusColumn, startedColumn]}
        />
      ) : null}
      {more ? (
        <Link className="more" to={`/runs?subjectId=${encodeURIComponent(subjectId)}`}>
          Every run on this subject
        </Link>
      ) : null}
    </section>
  );
}
