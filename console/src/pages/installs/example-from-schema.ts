// A starting input for a test call, made from the action's input schema: what a person edits rather than
// types from nothing. Pure; it reads the schema's own hints first (examples, default, const, enum) and
// otherwise fills the required properties with a value of their type. Not a validator: the platform
// checks the input when the call is sent.
import type { Json } from './config-form.ts';

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Deep enough for any real input; a recursive schema ($ref is not followed) cannot loop anyway. */
const MAX_DEPTH = 8;

function typeOf(schema: Schema): string | null {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) {
    const named = schema.type.find((t) => t !== 'null');
    return typeof named === 'string' ? named : null;
  }
  if (isSchema(schema.properties)) return 'object';
  if ('items' in schema) return 'array';
  return null;
}

function stringExample(schema: Schema): string {
  switch (schema.format) {
    case 'date':
      return '2000-01-31';
    case 'date-time':
      return '2000-01-31T12:00:00Z';
    case 'email':
      return 'ada@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
    default: {
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      // A pattern anchored on a literal character (`^/`, a path) starts the text with it.
      const lead =
        typeof schema.pattern === 'string' ? /^\^([/A-Za-z0-9_-])/.exec(schema.pattern)?.[1] : undefined;
      return `${lead ?? ''}text`.padEnd(min, 'x');
    }
  }
}

function numberExample(schema: Schema, integer: boolean): number {
  const min = typeof schema.minimum === 'number' ? schema.minimum : null;
  const exclusiveMin = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : null;
  const max = typeof schema.maximum === 'number' ? schema.maximum : null;
  if (min !== null) return integer ? Math.ceil(min) : min;
  if (exclusiveMin !== null) return integer ? Math.floor(exclusiveMin) + 1 : exclusiveMin + 1;
  if (max !== null && max < 0) return integer ? Math.floor(max) : max;
  return 0;
}

function objectExample(schema: Schema, depth: number): Json {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const example: Record<string, Json> = {};
  for (const [name, property] of Object.entries(properties)) {
    const own = isSchema(property) ? property : {};
    // Required properties always; optional ones only where the schema suggests a value.
    if (required.includes(name) || 'default' in own || Array.isArray(own.examples)) {
      example[name] = exampleAt(property, depth + 1);
    }
  }
  return example;
}

function exampleAt(schema: unknown, depth: number): Json {
  if (!isSchema(schema) || depth > MAX_DEPTH) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0] as Json;
  if ('default' in schema) return schema.default as Json;
  if ('const' in schema) return schema.const as Json;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] as Json;
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(alternatives) && alternatives.length > 0) return exampleAt(alternatives[0], depth + 1);
  switch (typeOf(schema)) {
    case 'object':
      return objectExample(schema, depth);
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: min }, () => exampleAt(schema.items, depth + 1));
    }
    case 'string':
      return stringExample(schema);
    case 'integer':
      return numberExample(schema, true);
    case 'number':
      return numberExample(schema, false);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return null;
  }
}

/** An example value of an input schema (a boolean schema, or one that says nothing, answers `{}`). */
export function exampleFromSchema(schema: unknown): Json {
  if (!isSchema(schema)) return {};
  const example = exampleAt(schema, 0);
  return example === null && typeOf(schema) !== 'null' ? {} : example;
}
