// GET and PUT /app-installs/:install/limits (spec part 1 §2.12, §4.2): the install's currency, prices
// and budgets. Both need apps:write, since the record shows spend. Thin: the schema shapes the body,
// limits.ts checks the rules and saves.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { BUDGET_METRICS, BUDGET_PERIODS } from '../calls/quotas.ts';
import { type InstallRouteDeps, installContextOf } from './context.ts';
import { getLimits, MAX_BUDGETS_PER_INSTALL, saveLimits } from './limits.ts';
import { InstallParams } from './routes.ts';

/** Micros and counts: whole numbers JSON and the bigint columns both carry exactly. */
const Amount = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

const BudgetBody = Type.Object(
  {
    // enum rather than a union of literals: one issue per wrong value instead of one per literal.
    metric: Type.Enum([...BUDGET_METRICS]),
    period: Type.Enum([...BUDGET_PERIODS]),
    max: Amount,
  },
  { additionalProperties: false },
);

const LimitsBody = Type.Object(
  {
    // One `type: [string, null]` rather than anyOf, like the circuit's nullable integers: no coercion
    // of a wrong type into the other branch.
    currency: Type.Unsafe<string | null>({ type: ['string', 'null'], pattern: '^[A-Z]{3}$' }),
    prices: Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Amount),
    budgets: Type.Array(BudgetBody, { maxItems: MAX_BUDGETS_PER_INSTALL }),
  },
  { additionalProperties: false },
);

export function limitsRoutes(deps: InstallRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/app-installs/:install/limits',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags: ['app-installs'],
          summary: 'The install’s limits record: currency, prices per action, budgets',
          params: InstallParams,
        },
      },
      async (request) => getLimits(installContextOf(deps, request), request.params.install),
    );

    app.put(
      '/app-installs/:install/limits',
      {
        config: { permission: 'apps:write' },
        schema: {
          tags: ['app-installs'],
          summary: 'Replace the install’s limits record',
          params: InstallParams,
          body: LimitsBody,
        },
      },
      async (request) => saveLimits(installContextOf(deps, request), request.params.install, request.body),
    );
  };
}
