// The runs pages' reads and their one write (cancel), with their keys. A run in motion (running, waiting on
// a vendor) is read again every REFRESH.inMotion; an ended one is not.
import { useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.ts';
import { REFRESH, useApi, useApiMutation } from '../../api/query.ts';
import { isInMotion, type RunFilters } from './run-rules.ts';

export const runKeys = {
  all: () => ['runs'] as const,
  list: (query: RunFilters & { limit: number; offset: number }) => ['runs', 'list', query] as const,
  run: (id: string) => ['runs', 'one', id] as const,
  invocations: (id: string) => ['runs', 'invocations', id] as const,
  sessions: (id: string) => ['runs', 'sessions', id] as const,
  related: (subjectId: string) => ['runs', 'related', subjectId] as const,
};

/** The runs of a page of the list; refreshed while any of them still moves. */
export function useRuns(query: RunFilters & { limit: number; offset: number }) {
  const client = useQueryClient();
  const known = client.getQueryData<{ items: { status: string }[] }>(runKeys.list(query));
  const moving = known === undefined || known.items.some((run) => isInMotion(run.status));
  return useApi(runKeys.list(query), (signal) => api.GET('/workflow-runs', { params: { query }, signal }), {
    refetchInterval: moving ? REFRESH.inMotion : false,
  });
}

/** One run; read again while it moves. */
export function useRun(id: string) {
  const client = useQueryClient();
  const known = client.getQueryData<{ status: string }>(runKeys.run(id));
  return useApi(
    runKeys.run(id),
    (signal) => api.GET('/workflow-runs/{id}', { params: { path: { id } }, signal }),
    { refetchInterval: known === undefined || isInMotion(known.status) ? REFRESH.inMotion : false },
  );
}

/** Every attempt of the run's steps (up to the API's page of 100, oldest step first as the page sorts them). */
export const useRunInvocations = (id: string, moving: boolean) =>
  useApi(
    runKeys.invocations(id),
    (signal) => api.GET('/app-invocations', { params: { query: { workflowRunId: id, limit: 100 } }, signal }),
    { refetchInterval: moving ? REFRESH.inMotion : false },
  );

/** The vendor sessions the run's steps opened. */
export const useRunSessions = (id: string, moving: boolean) =>
  useApi(
    runKeys.sessions(id),
    (signal) => api.GET('/app-callbacks', { params: { query: { workflowRunId: id, limit: 100 } }, signal }),
    { refetchInterval: moving ? REFRESH.inMotion : false },
  );

/** The latest runs on the same subject. */
export const useRelatedRuns = (subjectId: string) =>
  useApi(runKeys.related(subjectId), (signal) =>
    api.GET('/workflow-runs', { params: { query: { subjectId, limit: 11 } }, signal }),
  );

export const useCancelRun = () =>
  useApiMutation(
    (id: string) => api.POST('/workflow-runs/{id}/cancel', { params: { path: { id } } }),
    [runKeys.all()],
  );
