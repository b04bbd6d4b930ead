// The kinds of definitions, declared below runs: the activity feed names each (activity-rules.ts: a new
// kind does not compile until it is named there) and runs record into the audit trail, so runs/model.ts
// takes the type from here. A leaf: it imports nothing.
export type DefinitionKind = 'workflow' | 'rule_set';
