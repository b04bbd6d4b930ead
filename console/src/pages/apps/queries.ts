// The apps pages' reads and writes, with their keys: the catalogue, an app, the publish requests, and an
// upload, publish and decision (each refreshes the catalogue and the requests).
import { api } from '../../api/client.ts';
import { REFRESH, useApi, useApiMutation } from '../../api/query.ts';
import { homeKeys } from '../home/queries.ts';

export const appKeys = {
  /** Every catalogue read: an upload, publish or decision changes them. */
  all: () => ['apps'] as const,
  catalogue: () => ['apps', 'catalogue'] as const,
  app: (name: string) => ['apps', 'app', name] as const,
  /** Every publish requests read. */
  requests: () => ['app-approvals'] as const,
  requestsPage: (query: RequestsQuery) => ['app-approvals', query] as const,
};

export interface RequestsQuery {
  open: boolean;
  limit: number;
  offset: number;
}

/** What a write changes: the catalogue, the requests, and Home's attention and notifications. */
const CHANGED = [appKeys.all(), appKeys.requests(), homeKeys.attention(), homeKeys.notifications()];

export const useCatalogue = () => useApi(appKeys.catalogue(), (signal) => api.GET('/apps', { signal }));

export const useApp = (name: string) =>
  useApi(appKeys.app(name), (signal) => api.GET('/apps/{name}', { params: { path: { name } }, signal }));

/** Open requests wait for someone: they refresh by themselves while the tab shows. */
export const usePublishRequests = (query: RequestsQuery) =>
  useApi(appKeys.requestsPage(query), (signal) => api.GET('/apps/approvals', { params: { query }, signal }), {
    refetchInterval: query.open ? REFRESH.inMotion : false,
  });

/** A built module, uploaded as its raw bytes (`application/wasm`). */
export const useUpload = () =>
  useApiMutation(
    (file: Blob) =>
      api.POST('/apps/uploads', {
        // The generated type names the body a string; the bytes go as they are (the File), unserialised.
        body: '',
        bodySerializer: () => file,
        headers: { 'content-type': 'application/wasm' },
      }),
    CHANGED,
  );

export interface VersionRef {
  name: string;
  id: string;
}

export const usePublish = () =>
  useApiMutation(
    ({ name, id }: VersionRef) =>
      api.POST('/apps/{name}/versions/{id}/publish', { params: { path: { name, id } } }),
    CHANGED,
  );

export interface Decision extends VersionRef {
  decision: 'approve' | 'reject';
  body: { comment?: string };
}

export const useDecide = () =>
  useApiMutation(
    ({ name, id, decision, body }: Decision) =>
      decision === 'approve'
        ? api.POST('/apps/{name}/versions/{id}/approve', { params: { path: { name, id } }, body })
        : api.POST('/apps/{name}/versions/{id}/reject', { params: { path: { name, id } }, body }),
    CHANGED,
  );
