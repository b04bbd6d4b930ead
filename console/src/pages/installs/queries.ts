// The installs pages' reads and writes. Every key starts with 'installs', so a write refreshes every read
// of the area (an install's view, its list row, its health, limits, cache and changes) and Home's
// attention list, which counts open changes.
import { api } from '../../api/client.ts';
import { REFRESH, useApi, useApiMutation } from '../../api/query.ts';
import type { operations } from '../../api/schema.ts';

export const installKeys = {
  all: () => ['installs'] as const,
  list: (app: string | undefined) => ['installs', 'list', { app }] as const,
  one: (name: string) => ['installs', 'one', name] as const,
  health: (windowMinutes: number) => ['installs', 'health', { windowMinutes }] as const,
  metering: () => ['installs', 'metering'] as const,
  limits: (name: string) => ['installs', 'limits', name] as const,
  cache: (name: string) => ['installs', 'cache', name] as const,
  changes: (name: string, status: 'open' | 'decided') => ['installs', 'changes', name, status] as const,
  apps: () => ['installs', 'apps'] as const,
  versions: (app: string) => ['installs', 'versions', app] as const,
};
/** What a write refreshes: the area, and Home's attention list (open changes are items of it). */
const REFRESHED = [installKeys.all(), ['attention']];

const path = (install: string) => ({ path: { install } });

export const useInstalls = (app: string | undefined) =>
  useApi(installKeys.list(app), (signal) =>
    api.GET('/app-installs', { params: { query: app ? { app } : {} }, signal }),
  );

/** How installs fare: calls move it, so it refreshes while the page shows. */
export const useHealth = (windowMinutes: number) =>
  useApi(
    installKeys.health(windowMinutes),
    (signal) => api.GET('/apps/health', { params: { query: { windowMinutes } }, signal }),
    { refetchInterval: REFRESH.inMotion },
  );

export const useMonthMetering = () =>
  useApi(installKeys.metering(), (signal) => api.GET('/apps/metering', { signal }), {
    refetchInterval: REFRESH.inMotion,
  });

export const useInstall = (name: string) =>
  useApi(
    installKeys.one(name),
    (signal) => api.GET('/app-installs/{install}', { params: path(name), signal }),
    {
      refetchInterval: REFRESH.inMotion,
    },
  );

export const useLimits = (name: string, enabled: boolean) =>
  useApi(
    installKeys.limits(name),
    (signal) => api.GET('/app-installs/{install}/limits', { params: path(name), signal }),
    { enabled },
  );

export const useCache = (name: string) =>
  useApi(installKeys.cache(name), (signal) =>
    api.GET('/app-installs/{install}/cache', { params: path(name), signal }),
  );

export const useChanges = (name: string, status: 'open' | 'decided') =>
  useApi(installKeys.changes(name, status), (signal) =>
    api.GET('/app-install-changes', { params: { query: { install: name, status, limit: 100 } }, signal }),
  );

export const useApps = () => useApi(installKeys.apps(), (signal) => api.GET('/apps', { signal }));

export const useVersions = (app: string) =>
  useApi(
    installKeys.versions(app),
    (signal) => api.GET('/apps/{name}/versions', { params: { path: { name: app } }, signal }),
    { enabled: app !== '' },
  );

/** The JSON body a write takes, from the generated description. */
type Body<O extends keyof operations> = operations[O] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
export type CreateBody = Body<'createInstall'>;
export type SaveBody = Body<'saveInstall'>;
export type LimitsBody = Body<'saveInstallLimits'>;

export const useCreateInstall = () =>
  useApiMutation((body: CreateBody) => api.POST('/app-installs', { body }), REFRESHED);

export const useSaveInstall = (name: string) =>
  useApiMutation(
    (body: SaveBody) => api.PUT('/app-installs/{install}', { params: path(name), body }),
    REFRESHED,
  );

/** Removes the install; `force` fails the vendor sessions runs wait on (else 409 install_in_use). */
export const useDeleteInstall = (name: string) =>
  useApiMutation(
    (force: boolean) =>
      api.DELETE('/app-installs/{install}', {
        params: { path: { install: name }, query: force ? { force: true } : {} },
      }),
    REFRESHED,
  );

export const useStoreSecret = (name: string) =>
  useApiMutation(
    ({ secret, value }: { secret: string; value: string }) =>
      api.POST('/app-installs/{install}/secrets/{secret}', {
        params: { path: { install: name, secret } },
        body: { value },
      }),
    REFRESHED,
  );

export const useRemoveSecret = (name: string) =>
  useApiMutation(
    (secret: string) =>
      api.DELETE('/app-installs/{install}/secrets/{secret}', { params: { path: { install: name, secret } } }),
    REFRESHED,
  );

export const useRename = (name: string) =>
  useApiMutation(
    (body: { name: string; keepAlias: boolean }) =>
      api.POST('/app-installs/{install}/rename', { params: path(name), body }),
    REFRESHED,
  );

export const useRemoveAlias = (name: string) =>
  useApiMutation(
    (alias: string) =>
      api.DELETE('/app-installs/{install}/aliases/{alias}', { params: { path: { install: name, alias } } }),
    REFRESHED,
  );

export const useSaveLimits = (name: string) =>
  useApiMutation(
    (body: LimitsBody) => api.PUT('/app-installs/{install}/limits', { params: path(name), body }),
    REFRESHED,
  );

export const useClearCache = (name: string) =>
  useApiMutation(() => api.DELETE('/app-installs/{install}/cache', { params: path(name) }), REFRESHED);

export const useSaveCircuit = (name: string) =>
  useApiMutation(
    (body: { failureThreshold: number | null; openSeconds: number | null }) =>
      api.PUT('/app-installs/{install}/circuit', { params: path(name), body }),
    REFRESHED,
  );

export const useResetCircuit = (name: string) =>
  useApiMutation(() => api.POST('/app-installs/{install}/circuit/reset', { params: path(name) }), REFRESHED);

export type Decision = 'approve' | 'reject' | 'withdraw';

export const useDecideChange = (name: string) =>
  useApiMutation(({ id, decision, comment }: { id: string; decision: Decision; comment: string }) => {
    const params = { path: { install: name, id } };
    if (decision === 'withdraw') return api.POST('/app-installs/{install}/changes/{id}/withdraw', { params });
    const body = { comment: comment.trim() === '' ? null : comment };
    return decision === 'approve'
      ? api.POST('/app-installs/{install}/changes/{id}/approve', { params, body })
      : api.POST('/app-installs/{install}/changes/{id}/reject', { params, body });
  }, REFRESHED);

export const useTestCall = (name: string) =>
  useApiMutation(
    (body: { action: string; input: unknown }) =>
      api.POST('/app-installs/{install}/test', { params: path(name), body }),
    [installKeys.health(60), installKeys.metering()],
  );
