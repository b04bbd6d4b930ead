// The runs' front door: what other layers use of workflow runs and their definitions. Files outside
// src/runs import this file rather than the files behind it, so a run's steps, stores and workflows can
// move without breaking them. Each group's comment stands apart (a blank line under it) so that sorting
// the exports keeps the groups.
//
// Importers that stay direct: src/db/schema.ts (gathers the tables for Drizzle) and the benches, which
// seed definitions and runs straight into their tables.

// The api: the run and definition routes, their schemas, and the engine the routes start runs on.

export { definitionApprovalRoutes } from './definitions/approvals-routes.ts';
export { approvalSchemas } from './definitions/approvals-schemas.ts';
export { definitionCallers } from './definitions/callers.ts';
export { definitionRoutes } from './definitions/routes.ts';
export { definitionSchemas } from './definitions/schemas.ts';
export { dbosRunsEngine, type RunsEngine } from './engine-client.ts';
export { runRoutes } from './routes.ts';

// The worker: the run workflows, registered before launch, and the sweep and resumer beside them.

export { runsBackground } from './background.ts';
export { type RunsRuntime, registerRunWorkflows } from './workflows.ts';

// What other layers read of a run (collections, outbound webhooks, retention), never its tables.

export { runOfWorkflowEnded, runSubjectOf, runWaitingOnSession } from './run-reads.ts';

// A definition as others name it.

export type { DefinitionBody } from './model.ts';
