// The JSON Schemas a manifest carries (configSchema, each action's input and output): that they compile,
// and that config fields the platform reads for itself have no default. Pure.
import type { ValidateFunction } from 'ajv';
import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonSchema } from './manifest-types.ts';
import { pointerTokens } from './names.ts';

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * An Ajv for manifest schemas (draft 2020-12 with the standard formats), for the api to validate config,
 * input and output with the same reading. Not strict: authors may annotate schemas with keywords of their
 * own (x-...), which the manifest's unknown-field rule leaves alone too. Silent: nothing goes to stdout.
 */
export function createSchemaAjv(options: Options = {}): Ajv2020 {
  return addFormats(new Ajv2020({ strict: false, logger: false, ...options }));
}

/** Validators compiled from manifest schemas, by what they read and how (compiledSchema). */
const validators = new Map<string, ValidateFunction>();
/** The most validators kept; past it the cache starts over. */
const VALIDATORS_KEPT = 2000;

/**
 * The validator of a manifest's schema, compiled once per process for `key` (what names the schema: a
 * version's id and part, or the schema's own text; a version never changes) and `options`, each in an Ajv
 * of its own (as schemaProblem's), so one schema's $id never meets another's. Compiling costs 10 to 100 ms
 * of CPU; installs, config changes and calls read the same few schemas again and again.
 */
export function compiledSchema(key: string, schema: JsonSchema, options: Options): ValidateFunction {
  const cacheKey = `${JSON.stringify(options)}\n${key}`;
  const known = validators.get(cacheKey);
  if (known) return known;
  const validate = createSchemaAjv(options).compile(schema);
  if (validators.size >= VALIDATORS_KEPT) validators.clear();
  validators.set(cacheKey, validate);
  return validate;
}

// Checks schemas against the 2020-12 meta-schema. validateSchema reads a schema as data and registers
// nothing, so one instance serves every manifest; compiling the meta-schema once saves ~10 ms a schema.
const metaSchemas = createSchemaAjv();

/**
 * Why the schema does not compile, or null. The compile itself runs in a fresh Ajv each time, so one
 * schema's $id cannot meet another's and nothing of an untrusted schema stays behind.
 */
export function schemaProblem(schema: unknown): string | null {
  if (
    typeof schema !== 'boolean' &&
    (typeof schema !== 'object' || schema === null || Array.isArray(schema))
  ) {
    return 'a JSON Schema is an object or a boolean';
  }
  try {
    // Throws too, for a $schema other than the meta-schemas of draft 2020-12.
    if (!metaSchemas.validateSchema(schema as JsonSchema)) {
      return `schema is invalid: ${metaSchemas.errorsText(metaSchemas.errors, { dataVar: 'schema' })}`;
    }
    createSchemaAjv({ validateSchema: false }).compile(schema as JsonSchema);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

type SchemaObject = { [keyword: string]: unknown };

const isObject = (value: unknown): value is SchemaObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Follows local $ref chains ("#/$defs/url") inside the config schema; a remote one is left unresolved. */
function deref(root: JsonSchema, schema: unknown): unknown {
  let current = schema;
  for (let hops = 0; hops < 32 && isObject(current) && typeof current.$ref === 'string'; hops++) {
    const ref = current.$ref;
    if (ref !== '#' && !ref.startsWith('#/')) return current;
    let target: unknown = root;
    for (const token of ref === '#' ? [] : pointerTokens(ref.slice(1))) {
      target = isObject(target) || Array.isArray(target) ? (target as SchemaObject)[token] : undefined;
    }
    current = target;
  }
  return current;
}

function valueAt(value: unknown, tokens: readonly string[]): unknown {
  let current = value;
  for (const token of tokens) {
    if (!isObject(current) && !Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, token)) return undefined;
    current = (current as SchemaObject)[token];
  }
  return current;
}

const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'] as const;
const SUBSCHEMAS = ['if', 'then', 'else'] as const;

/** Whether the field's own schema, or one it is combined from, declares a default. */
function declaresDefault(root: JsonSchema, schema: unknown, depth = 0): boolean {
  const node = deref(root, schema);
  if (!isObject(node) || depth > 16) return false;
  if (Object.hasOwn(node, 'default')) return true;
  const parts = [
    ...SUBSCHEMA_LISTS.flatMap((key) => (Array.isArray(node[key]) ? (node[key] as unknown[]) : [])),
    ...SUBSCHEMAS.map((key) => node[key]),
  ];
  return parts.some((part) => declaresDefault(root, part, depth + 1));
}

/**
 * Checks a config field the platform reads for itself (hostsFromConfig, documentsFromConfig,
 * webhookExternalIdFromConfig). The pointer is resolved through `properties` (following local $refs);
 * the field must exist there and get no default: neither its own, nor through a default of an enclosing
 * object that holds a value at the field. A default would decide hosts, document access or webhook
 * routing for installs whose owners never wrote that value.
 */
export function configFieldProblem(configSchema: JsonSchema, pointer: string): string | null {
  const tokens = pointerTokens(pointer);
  let schema: unknown = configSchema;
  for (const [i, token] of tokens.entries()) {
    const node = deref(configSchema, schema);
    if (!isObject(node)) return `configSchema declares no property at ${pointer}`;
    if (Object.hasOwn(node, 'default') && valueAt(node.default, tokens.slice(i)) !== undefined) {
      return `configSchema gives ${pointer} a default through an enclosing object's default`;
    }
    const properties = node.properties;
    if (!isObject(properties) || !Object.hasOwn(properties, token)) {
      return `configSchema declares no property at ${pointer} (fields are looked up through properties)`;
    }
    schema = properties[token];
  }
  if (declaresDefault(configSchema, schema))
    return `configSchema gives ${pointer} a default; it may have none`;
  return null;
}
