// Reading and writing through TanStack Query: a page names a query key and the API call, and gets the
// answer's data or an ApiFailure (errors.ts). Keys live beside the page's queries (pages/<area>/queries.ts)
// so a mutation names the lists it changes.
import {
  QueryClient,
  type QueryKey,
  type UseMutationResult,
  type UseQueryResult,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import { ApiFailure, failureOf, NetworkFailure } from './errors.ts';

/** What openapi-fetch answers: data on success, the error body otherwise, and the response. */
export interface ApiResult<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/** How often pages refresh what moves by itself (ms); paused while the tab is hidden. */
export const REFRESH = {
  /** Running runs, pending deliveries, open vendor sessions. */
  inMotion: 5_000,
  /** Home's attention list, activity and notifications, the navigation's counts. */
  home: 15_000,
} as const;

/** The data of a successful answer; an ApiFailure otherwise. A 204 answers undefined. */
export async function unwrap<D>(pending: Promise<ApiResult<D>>): Promise<D> {
  const { data, error, response } = await pending;
  if (!response.ok || error !== undefined) {
    throw failureOf(response.status, error, response.headers.get('x-request-id'));
  }
  return data as D;
}

/** A read: `useApi(keys.attention(), (signal) => api.GET('/attention', { signal }))`. */
export function useApi<D>(
  key: QueryKey,
  call: (signal: AbortSignal) => Promise<ApiResult<D>>,
  options: { refetchInterval?: number | false; enabled?: boolean } = {},
): UseQueryResult<D, Error> {
  return useQuery({ queryKey: key, queryFn: ({ signal }) => unwrap(call(signal)), ...options });
}

/** A write; once it succeeds, the queries under each key of `invalidates` are read again. */
export function useApiMutation<V, D>(
  call: (variables: V) => Promise<ApiResult<D>>,
  invalidates: QueryKey[],
): UseMutationResult<D, Error, V> {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (variables: V) => unwrap(call(variables)),
    onSuccess: async () => {
      await Promise.all(invalidates.map((queryKey) => client.invalidateQueries({ queryKey })));
    },
  });
}

/** Retried: a platform that could not be reached (until it can), and a 5xx or 429 three times. */
export function shouldRetry(failures: number, error: unknown): boolean {
  if (error instanceof NetworkFailure) return true;
  if (error instanceof ApiFailure) return (error.status >= 500 || error.status === 429) && failures < 3;
  return false;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: shouldRetry,
        retryDelay: (attempt) => Math.min(1_000 * 2 ** attempt, 10_000),
        // Refreshing pages stop while the tab is hidden, and catch up when it shows again.
        refetchIntervalInBackground: false,
        refetchOnWindowFocus: true,
        staleTime: 2_000,
      },
      mutations: { retry: false },
    },
  });
}
