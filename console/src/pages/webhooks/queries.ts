// The webhooks pages' reads and writes, with their keys: endpoints, the event catalogue, deliveries and a
// delivery's attempts. Deliveries refresh themselves while one of them is still to be tried.
import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client.ts';
import { REFRESH, unwrap, useApi, useApiMutation } from '../../api/query.ts';
import {
  type DeliveryFilter,
  deliveriesInMotion,
  deliveryQueryOf,
  type EndpointBody,
} from './webhook-rules.ts';

export const webhookKeys = {
  endpoints: () => ['webhooks', 'endpoints'] as const,
  endpoint: (id: string) => ['webhooks', 'endpoint', id] as const,
  events: () => ['webhooks', 'events'] as const,
  /** Every deliveries list and every delivery's attempts: a retry refreshes them all. */
  deliveries: () => ['webhooks', 'deliveries'] as const,
  deliveriesPage: (filter: DeliveryFilter, page: { limit: number; offset: number }) =>
    ['webhooks', 'deliveries', 'list', filter, page] as const,
  attempts: (deliveryId: string, lastAttemptAt: string | null) =>
    ['webhooks', 'deliveries', 'attempts', deliveryId, lastAttemptAt] as const,
};

export const useEndpoints = () =>
  useApi(webhookKeys.endpoints(), (signal) => api.GET('/webhook-endpoints', { signal }));

export const useEndpoint = (id: string) =>
  useApi(webhookKeys.endpoint(id), (signal) =>
    api.GET('/webhook-endpoints/{id}', { params: { path: { id } }, signal }),
  );

export const useEventCatalogue = () =>
  useApi(webhookKeys.events(), (signal) => api.GET('/webhook-events', { signal }));

export const useDeliveries = (filter: DeliveryFilter, page: { limit: number; offset: number }) =>
  useQuery({
    queryKey: webhookKeys.deliveriesPage(filter, page),
    queryFn: ({ signal }) =>
      unwrap(api.GET('/webhook-deliveries', { params: { query: deliveryQueryOf(filter, page) }, signal })),
    // Pending and failed deliveries are still to be tried: the list follows them closely; otherwise it
    // looks for new deliveries as Home looks for news.
    refetchInterval: (query) =>
      deliveriesInMotion(query.state.data?.items) ? REFRESH.inMotion : REFRESH.home,
  });

/**
 * A delivery's attempts (newest first), read again whenever its latest attempt changes: the deliveries
 * list refreshes itself, and a new `lastAttemptAt` there is a new attempt here. The previous answer stays
 * shown meanwhile.
 */
export const useAttempts = (deliveryId: string, lastAttemptAt: string | null) =>
  useQuery({
    queryKey: webhookKeys.attempts(deliveryId, lastAttemptAt),
    queryFn: ({ signal }) =>
      unwrap(
        api.GET('/webhook-deliveries/{id}/attempts', {
          params: { path: { id: deliveryId }, query: { limit: 20 } },
          signal,
        }),
      ),
    placeholderData: (previous) => previous,
  });

export const useCreateEndpoint = () =>
  useApiMutation((body: EndpointBody) => api.POST('/webhook-endpoints', { body }), [webhookKeys.endpoints()]);

export const useReplaceEndpoint = (id: string) =>
  useApiMutation(
    (body: EndpointBody) => api.PUT('/webhook-endpoints/{id}', { params: { path: { id } }, body }),
    [webhookKeys.endpoints(), webhookKeys.endpoint(id)],
  );

/** Deletes; the endpoint's own query is not refreshed (it is gone): the page leaves for the list. */
export const useDeleteEndpoint = (id: string) =>
  useApiMutation(
    () => api.DELETE('/webhook-endpoints/{id}', { params: { path: { id } } }),
    [webhookKeys.endpoints(), webhookKeys.deliveries()],
  );

export const useRotateSecret = (id: string) =>
  useApiMutation(() => api.POST('/webhook-endpoints/{id}/rotate-secret', { params: { path: { id } } }), []);

export const useTestEndpoint = (id: string) =>
  useApiMutation(() => api.POST('/webhook-endpoints/{id}/test', { params: { path: { id } } }), []);

export const useRetryDelivery = () =>
  useApiMutation(
    (id: string) => api.POST('/webhook-deliveries/{id}/retry', { params: { path: { id } } }),
    [webhookKeys.deliveries()],
  );
