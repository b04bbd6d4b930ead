// Validation of a definition's body against the tenant as it stands (docs/runs.md "Definitions"): which
// installs, aliases, actions, changes and rule sets the body names. Pure: the body and a snapshot of the
// tenant (snapshot.ts loads it once per request) in, errors and warnings with JSON Pointers out. A draft
// is saved whatever they say; a publish is refused while there are errors.
import { childPointer } from '../../installs/index.ts';
import { unmappableKeys } from '../../module/index.ts';
import type { AppCall, DefinitionBody, DefinitionKind, RuleSetBody, WorkflowBody } from '../model.ts';

export interface ActionFacts {
  async: boolean;
  /** The input fields run data may fill (JSON Pointers); absent: any. */
  mappable?: readonly string[];
}

/** What validation reads of one install: its current name, state and the actions of its version. */
export interface InstallFacts {
  name: string;
  app: string;
  version: string;
  enabled: boolean;
  /** An install change (a held save) awaits approval. */
  changePending: boolean;
  /** Vendors can reach it (its view's webhookUrl is not null). */
  receivesWebhooks: boolean;
  actions: ReadonlyMap<string, ActionFacts>;
}

/** The tenant as validation sees it, names lower case. */
export interface Snapshot {
  /** By current name. */
  installs: ReadonlyMap<string, InstallFacts>;
  /** Kept former name → current name. */
  aliases: ReadonlyMap<string, string>;
  /** Rule set keys, and whether each has a published version (read for workflows only). */
  ruleSets: ReadonlyMap<string, { published: boolean }>;
}

export const ERROR_CODES = [
  'unknown_install',
  'unknown_action',
  'unmappable_input',
  'async_rule',
  'unknown_rule_set',
  'duplicate_output_key',
] as const;
export const WARNING_CODES = [
  'install_disabled',
  'install_pending',
  'install_no_webhook',
  'install_renamed',
  'rule_set_unpublished',
] as const;
export type ValidationCode = (typeof ERROR_CODES)[number] | (typeof WARNING_CODES)[number];

export interface ValidationIssue {
  code: ValidationCode;
  /** JSON Pointer into the body. */
  path: string;
  message: string;
}

export interface Validation {
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
}

/** One app call of a body: where it sits, what it names, and whether it must be synchronous (a rule's). */
export interface PlacedCall {
  path: string;
  call: Pick<AppCall, 'install' | 'action' | 'inputMapping'>;
  rule: boolean;
}

const isWorkflow = (kind: DefinitionKind, _body: DefinitionBody): _body is WorkflowBody =>
  kind === 'workflow';

/** Every app call of a body in order: a step's or rule's own, then its fallback's. */
export function appCallsOf(kind: DefinitionKind, body: DefinitionBody): PlacedCall[] {
  const calls: PlacedCall[] = [];
  const add = (path: string, call: AppCall, rule: boolean) => {
    calls.push({ path, call, rule });
    if (call.fallback) calls.push({ path: `${path}/fallback`, call: call.fallback, rule });
  };
  if (isWorkflow(kind, body)) {
    body.steps.forEach((step, i) => {
      if (step.type === 'call_app') add(`/steps/${i}`, step, false);
    });
  } else {
    (body as RuleSetBody).rules.forEach((rule, i) => {
      if (rule.type === 'app') add(`/rules/${i}`, rule, true);
    });
  }
  return calls;
}

/** The install names a body calls (steps, app rules, fallbacks): lower case, each once, sorted. */
export function installNamesOf(kind: DefinitionKind, body: DefinitionBody): string[] {
  return [...new Set(appCallsOf(kind, body).map((c) => c.call.install.toLowerCase()))].sort();
}

/**
 * Names no step may write into the run context: on a JavaScript object they reach its machinery (its
 * prototype), not a member of its own.
 */
export const RESERVED_CONTEXT_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/** Where a step writes into the run context: a call_app or rule_set step at its outputKey, a decide step at its id. */
interface ContextWrite {
  key: string;
  /** The JSON Pointer of the field naming the key. */
  path: string;
  step: string;
}

const contextWritesOf = (body: WorkflowBody): ContextWrite[] =>
  body.steps.map((step, i) =>
    step.type === 'decide'
      ? { key: step.id, path: `/steps/${i}/id`, step: step.id }
      : { key: step.outputKey, path: `/steps/${i}/outputKey`, step: step.id },
  );

/**
 * What the body's schema cannot say: step ids unique in a workflow, rule keys unique in a rule set, and
 * no context key a step writes among the reserved ones. Refused on save (400 validation_error), like a
 * schema violation: none of them is ever valid, whatever the tenant holds.
 */
export function shapeIssues(kind: DefinitionKind, body: DefinitionBody): { path: string; message: string }[] {
  const [items, field, noun] = isWorkflow(kind, body)
    ? [body.steps.map((s) => s.id), 'id', 'step id']
    : [(body as RuleSetBody).rules.map((r) => r.key), 'key', 'rule key'];
  const seen = new Map<string, number>();
  const issues: { path: string; message: string }[] = [];
  items.forEach((name, i) => {
    const first = seen.get(name);
    if (first === undefined) seen.set(name, i);
    else {
      const list = isWorkflow(kind, body) ? 'steps' : 'rules';
      issues.push({ path: `/${list}/${i}/${field}`, message: `repeats the ${noun} of /${list}/${first}` });
    }
  });
  if (isWorkflow(kind, body)) {
    for (const { key, path } of contextWritesOf(body)) {
      if (RESERVED_CONTEXT_KEYS.includes(key)) {
        issues.push({
          path,
          message: `${key} is reserved: the run context cannot hold it (${RESERVED_CONTEXT_KEYS.join(', ')} are refused)`,
        });
      }
    }
  }
  return issues;
}

/**
 * The steps writing a context key an earlier step writes (duplicate_output_key, at the later one): the
 * later would silently replace the earlier's result, which later steps and decisions read.
 */
function duplicateWrites(body: WorkflowBody): ValidationIssue[] {
  const first = new Map<string, ContextWrite>();
  const issues: ValidationIssue[] = [];
  for (const write of contextWritesOf(body)) {
    const earlier = first.get(write.key);
    if (!earlier) {
      first.set(write.key, write);
      continue;
    }
    issues.push({
      code: 'duplicate_output_key',
      path: write.path,
      message: `step ${write.step} writes the context key ${write.key}, which step ${earlier.step} (${earlier.path}) writes too`,
    });
  }
  return issues;
}

/** Validates a body against the tenant: errors keep it from being published, warnings do not. */
export function validateDefinition(kind: DefinitionKind, body: DefinitionBody, tenant: Snapshot): Validation {
  const found: ValidationIssue[] = [];
  for (const placed of appCallsOf(kind, body)) found.push(...callIssues(placed, tenant));
  if (isWorkflow(kind, body)) {
    found.push(...duplicateWrites(body));
    body.steps.forEach((step, i) => {
      if (step.type !== 'rule_set') return;
      const path = `/steps/${i}/ruleSet`;
      const ruleSet = tenant.ruleSets.get(step.ruleSet);
      if (!ruleSet) {
        found.push({ code: 'unknown_rule_set', path, message: `no rule set has the key ${step.ruleSet}` });
      } else if (!ruleSet.published) {
        found.push({
          code: 'rule_set_unpublished',
          path,
          message: `rule set ${step.ruleSet} has no published version yet; runs fail at this step until it has`,
        });
      }
    });
  }
  const isError = (issue: ValidationIssue) => (ERROR_CODES as readonly string[]).includes(issue.code);
  return { errors: found.filter(isError), warnings: found.filter((issue) => !isError(issue)) };
}

function callIssues({ path, call, rule }: PlacedCall, tenant: Snapshot): ValidationIssue[] {
  const named = call.install.toLowerCase();
  const current = tenant.installs.has(named) ? named : tenant.aliases.get(named);
  const install = current === undefined ? undefined : tenant.installs.get(current);
  const at = (field: string) => `${path}/${field}`;
  if (!install) {
    return [{ code: 'unknown_install', path: at('install'), message: `no install named ${named}` }];
  }
  const issues: ValidationIssue[] = [];
  if (install.name !== named) {
    issues.push({
      code: 'install_renamed',
      path: at('install'),
      message: `${named} is a former name of install ${install.name}; name ${install.name} instead`,
    });
  }
  if (!install.enabled) {
    issues.push({
      code: 'install_disabled',
      path: at('install'),
      message: `install ${install.name} is disabled: its calls fail until it is enabled`,
    });
  }
  if (install.changePending) {
    issues.push({
      code: 'install_pending',
      path: at('install'),
      message: `a change of install ${install.name} awaits approval`,
    });
  }
  const action = install.actions.get(call.action);
  if (!action) {
    issues.push({
      code: 'unknown_action',
      path: at('action'),
      message: `install ${install.name} runs ${install.app} ${install.version}, which has no action ${call.action}`,
    });
    return issues;
  }
  if (action.async && rule) {
    issues.push({
      code: 'async_rule',
      path: at('action'),
      message: `action ${call.action} completes through a webhook: an app rule needs a synchronous action`,
    });
  } else if (action.async && !install.receivesWebhooks) {
    issues.push({
      code: 'install_no_webhook',
      path: at('action'),
      message: `action ${call.action} completes through a webhook, and install ${install.name} receives none`,
    });
  }
  // Sorted: a body read back from jsonb has its keys in another order than the one sent.
  for (const key of unmappableKeys(action.mappable, call.inputMapping).sort()) {
    issues.push({
      code: 'unmappable_input',
      path: childPointer(at('inputMapping'), key),
      message: `action ${call.action} lets run data fill only ${action.mappable?.join(', ')}`,
    });
  }
  return issues;
}

/**
 * The body with every call naming one of `names` (lower case) naming `to` instead: a rename's rewrite.
 * Everything else is kept as it is.
 */
export function withInstallRenamed<T extends DefinitionBody>(
  kind: DefinitionKind,
  body: T,
  names: ReadonlySet<string>,
  to: string,
): T {
  const copy = structuredClone(body);
  for (const { call } of appCallsOf(kind, copy)) {
    if (names.has(call.install.toLowerCase())) call.install = to;
  }
  return copy;
}
