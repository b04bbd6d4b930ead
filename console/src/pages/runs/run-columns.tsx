// The columns a list of runs shows wherever it appears (the runs page, a run's other runs on its subject):
// one definition each, so the two lists read alike.
import { Link } from 'react-router';
import type { Column } from '../../components/Table.tsx';
import { When } from '../../components/When.tsx';
import { RunStatus } from './RunStatus.tsx';

/** What these columns read of a run, as every runs listing answers it. */
interface Run {
  id: string;
  workflow: string;
  version: number;
  status: string;
  createdAt: string;
}

export const runLinkColumn: Column<Run> = {
  header: 'Run',
  cell: (run) => (
    <Link to={`/runs/${encodeURIComponent(run.id)}`}>
      <code>{run.id}</code>
    </Link>
  ),
};
export const workflowColumn: Column<Run> = {
  header: 'Workflow',
  cell: (run) => `${run.workflow} v${run.version}`,
};
export const statusColumn: Column<Run> = {
  header: 'Status',
  cell: (run) => <RunStatus status={run.status} />,
};
export const startedColumn: Column<Run> = { header: 'Started', cell: (run) => <When at={run.createdAt} /> };
