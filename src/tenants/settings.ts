// Tenant settings that later features read: who must approve what, and where applicants are sent.
import { type Static, Type } from 'typebox';

export const APPROVAL_AREAS = ['apps', 'definitions'] as const;
export type ApprovalArea = (typeof APPROVAL_AREAS)[number];

export const TenantSettingsSchema = Type.Object(
  {
    approvals: Type.Object(
      {
        required: Type.Boolean({
          description: 'Master switch: changes in the areas of requiredFor wait for approval.',
        }),
        requiredFor: Type.Array(Type.Union([Type.Literal('apps'), Type.Literal('definitions')]), {
          uniqueItems: true,
          description: 'Areas whose changes need approval while required is true.',
        }),
        fourEyes: Type.Boolean({ description: 'The requester may not approve their own request.' }),
      },
      { additionalProperties: false },
    ),
    collection: Type.Object(
      {
        flowUrl: Type.Union(
          [Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 }), Type.Null()],
          {
            description:
              'Base URL of the collection flow; hand-off returns applicants to <flowUrl>/flow/<id>.',
          },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'TenantSettings' },
);

export type TenantSettings = Static<typeof TenantSettingsSchema>;

export function defaultTenantSettings(): TenantSettings {
  return {
    approvals: { required: false, requiredFor: ['apps', 'definitions'], fourEyes: true },
    collection: { flowUrl: null },
  };
}

/** Whether changes in an area wait for approval under these settings. */
export function approvalRequired(settings: TenantSettings, area: ApprovalArea): boolean {
  return settings.approvals.required && settings.approvals.requiredFor.includes(area);
}
