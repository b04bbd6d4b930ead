// The usage page's reads: a month's metering with the quotas and budgets (GET /apps/metering), and one
// install's (or every install's) use day by day (GET /app-installs/metering).
import { api } from '../../api/client.ts';
import { useApi } from '../../api/query.ts';

export const usageKeys = {
  month: (month: string) => ['usage', 'month', month] as const,
  days: (query: { install?: string; from: string; to: string }) => ['usage', 'days', query] as const,
};

export const useMonthMetering = (month: string) =>
  useApi(usageKeys.month(month), (signal) =>
    api.GET('/apps/metering', { params: { query: { month } }, signal }),
  );

export const useDailyMetering = (query: { install?: string; from: string; to: string }) =>
  useApi(usageKeys.days(query), (signal) => api.GET('/app-installs/metering', { params: { query }, signal }));
