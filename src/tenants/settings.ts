// Tenant settings that later features read: who must approve what, and where applicants are sent.
import { type Static, Type } from 'typebox';

/** The areas code asks about (approvalRequired); each is spelled in requiredFor as REQUIRED_FOR names it. */
export const APPROVAL_AREAS = ['apps', 'definitions'] as const;
export type ApprovalArea = (typeof APPROVAL_AREAS)[number];

/**
 * How each area is named in requiredFor. `app` is the API's name for apps; `apps`, the name this platform
 * first took, is still accepted and stored settings holding it keep their meaning.
 */
const REQUIRED_FOR: Record<ApprovalArea, readonly string[]> = {
  apps: ['app', 'apps'],
  definitions: ['definitions'],
};

export const TenantSettingsSchema = Type.Object(
  {
    approvals: Type.Object(
      {
        required: Type.Boolean({
          description:
            'Master switch: changes in the areas of requiredFor (every area when unset) wait for approval.',
        }),
        requiredFor: Type.Optional(
          Type.Array(Type.Union([Type.Literal('app'), Type.Literal('definitions'), Type.Literal('apps')]), {
            uniqueItems: true,
            description:
              'Areas whose changes need approval while required is true: app (apps; the older spelling apps ' +
              'is read the same) and definitions. Unset: every area.',
          }),
        ),
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

/**
 * Whether changes in an area wait for approval under these settings: approvals.required with requiredFor
 * unset (every area) or naming the area.
 */
export function approvalRequired(settings: TenantSettings, area: ApprovalArea): boolean {
  const { required, requiredFor } = settings.approvals;
  if (!required) return false;
  if (requiredFor === undefined) return true;
  return requiredFor.some((name) => REQUIRED_FOR[area].includes(name));
}
