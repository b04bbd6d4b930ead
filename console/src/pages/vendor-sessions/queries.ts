// The vendor sessions page's reads, with their keys: the sessions (refreshed while one is pending), one
// session and the webhooks it received (refreshed while it is pending).
import { useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.ts';
import { REFRESH, useApi } from '../../api/query.ts';

export type SessionStatus = 'pending' | 'completed' | 'failed' | 'timed_out';
export const SESSION_STATUSES: readonly SessionStatus[] = ['pending', 'completed', 'failed', 'timed_out'];

export interface SessionQuery {
  install?: string;
  status?: SessionStatus;
  limit: number;
  offset: number;
}

export const sessionKeys = {
  list: (query: SessionQuery) => ['vendor-sessions', 'list', query] as const,
  one: (id: string) => ['vendor-sessions', 'one', id] as const,
  events: (id: string, page: { limit: number; offset: number }) =>
    ['vendor-sessions', 'events', id, page] as const,
};

const pendingIn = (known: { items: { status: string }[] } | undefined) =>
  known === undefined || known.items.some((session) => session.status === 'pending');

export function useSessions(query: SessionQuery) {
  const known = useQueryClient().getQueryData<{ items: { status: string }[] }>(sessionKeys.list(query));
  return useApi(
    sessionKeys.list(query),
    (signal) => api.GET('/app-callbacks', { params: { query }, signal }),
    { refetchInterval: pendingIn(known) ? REFRESH.inMotion : false },
  );
}

export function useSession(id: string) {
  const known = useQueryClient().getQueryData<{ status: string }>(sessionKeys.one(id));
  return useApi(
    sessionKeys.one(id),
    (signal) => api.GET('/app-callbacks/{id}', { params: { path: { id } }, signal }),
    { refetchInterval: known === undefined || known.status === 'pending' ? REFRESH.inMotion : false },
  );
}

export const useSessionEvents = (id: string, page: { limit: number; offset: number }, moving: boolean) =>
  useApi(
    sessionKeys.events(id, page),
    (signal) => api.GET('/app-callbacks/{id}/events', { params: { path: { id }, query: page }, signal }),
    { refetchInterval: moving ? REFRESH.inMotion : false },
  );
