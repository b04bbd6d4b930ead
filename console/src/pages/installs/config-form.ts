// An install's config form, described from the version's configSchema (JSON Schema): which field shows
// each property, its label, help, required marker and default. Pure, and it never compiles a schema (a
// validator built with `new Function` breaks the console's CSP, which allows no eval): the platform
// validates every save and answers its issues at JSON Pointers, which the form places next to their
// fields (placeIssues). What the describer cannot render as fields is edited as JSON.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

interface FieldBase {
  /** JSON Pointer of the value in the config (`/auth/type`). */
  pointer: string;
  /** The property's name, or its title. */
  label: string;
  description: string | null;
  required: boolean;
  /** The schema's `default`, shown as a hint (the module applies it; the form writes nothing). */
  defaultValue: Json | undefined;
}

export type Field =
  | (FieldBase & { kind: 'text'; format: string | null })
  | (FieldBase & { kind: 'number'; integer: boolean; minimum: number | null; maximum: number | null })
  | (FieldBase & { kind: 'boolean' })
  | (FieldBase & { kind: 'choice'; options: Json[] })
  | (FieldBase & { kind: 'group'; fields: Field[] })
  | (FieldBase & { kind: 'list'; item: 'text' | 'number' | 'integer' })
  | (FieldBase & { kind: 'choices'; options: Json[] })
  | (FieldBase & { kind: 'json' });

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A schema's single type: `type: "string"`, or `["string", "null"]` read as string; else null. */
function typeOf(schema: Schema): string | null {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const named = type.filter((t) => t !== 'null');
    return named.length === 1 && typeof named[0] === 'string' ? named[0] : null;
  }
  return null;
}

/** An `enum` or `const` as the values a choice offers; null when the schema has neither. */
function optionsOf(schema: Schema): Json[] | null {
  if (Array.isArray(schema.enum)) return schema.enum as Json[];
  if ('const' in schema) return [schema.const as Json];
  return null;
}

const escapeToken = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1');
export const childPointer = (parent: string, name: string | number) =>
  `${parent}/${escapeToken(String(name))}`;

/** Where the schema's structure goes beyond plain fields (alternatives), the JSON editor takes over. */
const hasAlternatives = (schema: Schema) => 'oneOf' in schema || 'anyOf' in schema || '$ref' in schema;

function describeOne(schema: unknown, base: FieldBase): Field {
  if (!isSchema(schema) || hasAlternatives(schema)) return { ...base, kind: 'json' };
  const options = optionsOf(schema);
  if (options) return { ...base, kind: 'choice', options };
  switch (typeOf(schema)) {
    case 'string':
      return { ...base, kind: 'text', format: typeof schema.format === 'string' ? schema.format : null };
    case 'number':
    case 'integer':
      return {
        ...base,
        kind: 'number',
        integer: typeOf(schema) === 'integer',
        minimum: typeof schema.minimum === 'number' ? schema.minimum : null,
        maximum: typeof schema.maximum === 'number' ? schema.maximum : null,
      };
    case 'boolean':
      return { ...base, kind: 'boolean' };
    case 'object':
      return isSchema(schema.properties) && Object.keys(schema.properties).length > 0
        ? { ...base, kind: 'group', fields: describeProperties(schema, base.pointer) }
        : { ...base, kind: 'json' };
    case 'array':
      return describeArray(schema, base);
    default:
      return { ...base, kind: 'json' };
  }
}

function describeArray(schema: Schema, base: FieldBase): Field {
  const items = schema.items;
  if (!isSchema(items) || hasAlternatives(items)) return { ...base, kind: 'json' };
  const options = optionsOf(items);
  if (options) return { ...base, kind: 'choices', options };
  const type = typeOf(items);
  if (type === 'string') return { ...base, kind: 'list', item: 'text' };
  if (type === 'number' || type === 'integer') return { ...base, kind: 'list', item: type };
  return { ...base, kind: 'json' };
}

function describeProperties(schema: Schema, pointer: string): Field[] {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(properties).map(([name, property]) => {
    const own = isSchema(property) ? property : {};
    return describeOne(property, {
      pointer: childPointer(pointer, name),
      label: typeof own.title === 'string' ? own.title : name,
      description: typeof own.description === 'string' ? own.description : null,
      required: required.includes(name),
      defaultValue: 'default' in own ? (own.default as Json) : undefined,
    });
  });
}

/**
 * The form for a configSchema: a field per property of an object schema; a schema that is not one (a
 * boolean schema, an object without properties, alternatives at the top) is one JSON field for the
 * whole config (pointer '').
 */
export function describeConfig(schema: unknown): Field[] {
  if (isSchema(schema) && !hasAlternatives(schema) && isSchema(schema.properties)) {
    if (Object.keys(schema.properties).length > 0) return describeProperties(schema, '');
  }
  return [
    {
      pointer: '',
      label: 'Config',
      description: null,
      required: true,
      defaultValue: undefined,
      kind: 'json',
    },
  ];
}

const tokensOf = (pointer: string) =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));

/** The value at a pointer, or undefined where the config holds none. */
export function valueAt(config: Json | undefined, pointer: string): Json | undefined {
  let here: Json | undefined = config;
  for (const token of tokensOf(pointer)) {
    if (!isSchema(here)) return undefined;
    here = Object.hasOwn(here, token) ? (here as Record<string, Json>)[token] : undefined;
  }
  return here;
}

/**
 * The config with the value at `pointer` set (undefined removes it; an object left empty by a removal
 * goes too, so clearing a group's last field leaves no `{}` for the schema to refuse). Never mutates.
 */
export function withValueAt(
  config: Json | undefined,
  pointer: string,
  value: Json | undefined,
): Json | undefined {
  return setAt(config, tokensOf(pointer), value, false);
}

function setAt(
  here: Json | undefined,
  tokens: string[],
  value: Json | undefined,
  nested: boolean,
): Json | undefined {
  const [head, ...rest] = tokens;
  if (head === undefined) return value;
  const object: Record<string, Json> = isSchema(here) ? { ...(here as Record<string, Json>) } : {};
  const child = setAt(object[head], rest, value, true);
  if (child === undefined) delete object[head];
  else object[head] = child;
  return nested && Object.keys(object).length === 0 ? undefined : object;
}

/** What a field's typed text means: a value, nothing (empty: the property is left out), or a mistake. */
export type Parsed = { value: Json | undefined } | { invalid: string };

export function parseFieldText(field: Field, text: string): Parsed {
  const trimmed = text.trim();
  if (field.kind === 'number') {
    if (trimmed === '') return { value: undefined };
    const number = Number(trimmed);
    if (!Number.isFinite(number)) return { invalid: 'Enter a number.' };
    if (field.integer && !Number.isInteger(number)) return { invalid: 'Enter a whole number.' };
    return { value: number };
  }
  if (field.kind === 'list') {
    const lines = text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    if (lines.length === 0) return { value: undefined };
    if (field.item === 'text') return { value: lines };
    const numbers = lines.map(Number);
    if (numbers.some((n) => !Number.isFinite(n) || (field.item === 'integer' && !Number.isInteger(n)))) {
      return {
        invalid: field.item === 'integer' ? 'Enter one whole number a line.' : 'Enter one number a line.',
      };
    }
    return { value: numbers };
  }
  if (field.kind === 'json') {
    if (trimmed === '') return { value: undefined };
    try {
      return { value: JSON.parse(trimmed) as Json };
    } catch {
      return { invalid: 'This is not valid JSON.' };
    }
  }
  return { value: trimmed === '' ? undefined : text };
}

/** A field's value as the text its control shows (the inverse of parseFieldText). */
export function fieldText(field: Field, value: Json | undefined): string {
  if (value === undefined) return '';
  if (field.kind === 'list' && Array.isArray(value)) return value.map((v) => String(v)).join('\n');
  if (field.kind === 'json') return JSON.stringify(value, null, 2);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export interface Issue {
  path: string;
  message: string;
}

/** Every field's pointer, groups and their fields alike. */
export function pointersOf(fields: readonly Field[]): string[] {
  return fields.flatMap((f) => [f.pointer, ...(f.kind === 'group' ? pointersOf(f.fields) : [])]);
}

/**
 * The platform's issues placed at the fields they are about: an issue goes to the field at its pointer,
 * else to the nearest field above it (`/variables/0/key` to the Variables field); what no field holds
 * (the config's root) stays for the top of the form.
 */
export function placeIssues(
  fields: readonly Field[],
  issues: readonly Issue[],
): { at: Map<string, string[]>; unplaced: Issue[] } {
  const pointers = new Set(pointersOf(fields));
  const at = new Map<string, string[]>();
  const unplaced: Issue[] = [];
  for (const issue of issues) {
    let pointer = issue.path;
    while (pointer !== '' && !pointers.has(pointer)) pointer = pointer.slice(0, pointer.lastIndexOf('/'));
    if (pointer === '' && !pointers.has('')) unplaced.push(issue);
    else at.set(pointer, [...(at.get(pointer) ?? []), issue.message]);
  }
  return { at, unplaced };
}
