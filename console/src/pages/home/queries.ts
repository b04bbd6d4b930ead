// Home's reads and its one write, with their keys (the navigation's counts read the same queries).
import { api } from '../../api/client.ts';
import { REFRESH, useApi, useApiMutation } from '../../api/query.ts';

export const homeKeys = {
  attention: () => ['attention'] as const,
  activity: (limit: number) => ['activity', { limit }] as const,
  /** Every notifications query: a mark-read refreshes them all (the lists and the unread count). */
  notifications: () => ['notifications'] as const,
  notificationsPage: (query: { limit: number; offset: number; unread: boolean }) =>
    ['notifications', query] as const,
};

export const useAttention = () =>
  useApi(homeKeys.attention(), (signal) => api.GET('/attention', { signal }), {
    refetchInterval: REFRESH.home,
  });

export const useActivity = (limit: number) =>
  useApi(
    homeKeys.activity(limit),
    (signal) => api.GET('/activity', { params: { query: { limit } }, signal }),
    {
      refetchInterval: REFRESH.home,
    },
  );

export const useNotifications = (query: { limit: number; offset: number; unread: boolean }) =>
  useApi(
    homeKeys.notificationsPage(query),
    (signal) =>
      api.GET('/notifications', {
        params: {
          query: { limit: query.limit, offset: query.offset, ...(query.unread ? { unread: true } : {}) },
        },
        signal,
      }),
    { refetchInterval: REFRESH.home },
  );

/** How many notifications the principal has not read (one item asked for; the answer counts them all). */
export const useUnreadCount = () => useNotifications({ limit: 1, offset: 0, unread: true });

export const useMarkRead = () =>
  useApiMutation(
    (id: string) => api.POST('/notifications/{id}/read', { params: { path: { id } } }),
    [homeKeys.notifications()],
  );
