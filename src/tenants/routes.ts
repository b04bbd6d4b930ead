import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../config.ts';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { notFound } from '../http/errors.ts';
import { findTenantById, updateTenantSettings } from './service.ts';
import { type TenantSettings, TenantSettingsSchema } from './settings.ts';

const TenantProfile = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    retention: Type.Object(
      {
        appCallbackDays: Type.Integer({
          description: 'RETENTION_APP_CALLBACK_DAYS; 0 keeps settled sessions forever.',
        }),
        submissionEventDays: Type.Integer({
          description: 'RETENTION_SUBMISSION_EVENT_DAYS; 0 keeps drop-off events forever.',
        }),
      },
      {
        additionalProperties: false,
        description: 'The deployment’s retention settings: how long each kind of record is kept.',
      },
    ),
  },
  { additionalProperties: false, title: 'Tenant' },
);

const settingsExample: TenantSettings = {
  approvals: { required: true, requiredFor: ['app'], fourEyes: true },
  collection: { flowUrl: 'https://collect.example.com' },
};

export function tenantRoutes(
  database: Database,
  config: Pick<Config, 'retention'>,
): FastifyPluginAsyncTypebox {
  return async (app) => {
    const loadTenant = async (tenantId: string) => {
      const tenant = await findTenantById(database.db, tenantId);
      if (!tenant) throw notFound('tenant not found');
      return tenant;
    };

    app.get(
      '/tenants/me',
      {
        schema: {
          tags: ['tenants'],
          operationId: 'getTenant',
          summary: 'The caller’s tenant and its retention settings',
          response: { 200: TenantProfile },
        },
      },
      async (request) => {
        const tenant = await loadTenant(principalOf(request).tenantId);
        return {
          id: tenant.id,
          name: tenant.name,
          createdAt: tenant.createdAt.toISOString(),
          retention: {
            appCallbackDays: config.retention.appCallbackDays,
            submissionEventDays: config.retention.submissionEventDays,
          },
        };
      },
    );

    app.get(
      '/tenants/me/settings',
      {
        config: { permission: 'tenants:settings' },
        schema: {
          tags: ['tenants'],
          operationId: 'getTenantSettings',
          summary: 'Approval and collection settings',
          response: { 200: TenantSettingsSchema },
        },
      },
      async (request) => (await loadTenant(principalOf(request).tenantId)).settings,
    );

    app.put(
      '/tenants/me/settings',
      {
        config: { permission: 'tenants:settings' },
        schema: {
          tags: ['tenants'],
          operationId: 'replaceTenantSettings',
          summary: 'Replace the approval and collection settings (audited tenant.settings.updated)',
          body: { ...TenantSettingsSchema, examples: [settingsExample] },
          response: { 200: TenantSettingsSchema },
        },
      },
      async (request) => updateTenantSettings(database, principalOf(request), request.body, request.id),
    );
  };
}
