// The type section and value types: the features a module may use are decided here, from the bytes.
// Only plain function types are accepted. GC struct and array types (and the recursive groups and
// subtypes that declare them) make objects on the sandbox thread's JavaScript heap, outside linear
// memory, where memoryMiB does not bound them; without such a type no instruction can allocate one.
// Typed and GC references are refused with them, and exnref with exception handling (a caught exception
// lives on that heap too), so what a module passes around is numbers, vectors, funcref and externref.
// Pure.
import { Malformed, Reader, type Section, Unsupported } from './binary.ts';
import { MAX_GLOBALS, skipConstExpr } from './instance-size.ts';

/** Value types a module may use anywhere (signatures, globals, locals, blocks): numbers, v128, two references. */
const VALUE_TYPES: ReadonlyMap<number, string> = new Map([
  [0x7f, 'i32'],
  [0x7e, 'i64'],
  [0x7d, 'f32'],
  [0x7c, 'f64'],
  [0x7b, 'v128'],
  [0x70, 'funcref'],
  [0x6f, 'externref'],
]);
const FUNCREF = 0x70;
const EXTERNREF = 0x6f;
const EXNREF = 0x69;

/** Reference types of the GC proposal, by their one-byte shorthand, to name what was refused. */
const GC_REFERENCES: ReadonlyMap<number, string> = new Map([
  [0x6e, 'anyref'],
  [0x6d, 'eqref'],
  [0x6c, 'i31ref'],
  [0x6b, 'structref'],
  [0x6a, 'arrayref'],
  [0x71, 'nullref'],
  [0x72, 'nullexternref'],
  [0x73, 'nullfuncref'],
  [0x74, 'nullexnref'],
]);

/** Type forms other than a function type, each named for its refusal. */
const GC_FORMS: ReadonlyMap<number, string> = new Map([
  [0x5f, 'GC struct types'],
  [0x5e, 'GC array types'],
  [0x4e, 'GC recursive type groups'],
  [0x50, 'GC subtypes'],
  [0x4f, 'GC subtypes'],
]);
const FUNCTION_FORM = 0x60;

/** Whether a byte is an accepted value type (the body scanner's fast path). */
export const isValueType = (type: number): boolean => VALUE_TYPES.has(type);

/** Reads one accepted value type; `where` names the place for a refusal. */
export function readValueType(reader: Reader, where: string): void {
  const type = reader.byte();
  if (VALUE_TYPES.has(type)) return;
  refuseType(type, where);
}

function refuseType(type: number, where: string): never {
  if (type === EXNREF) throw new Unsupported(`exception handling (exnref in ${where})`);
  if (type === 0x63 || type === 0x64) throw new Unsupported(`typed references (ref …) in ${where}`);
  const gc = GC_REFERENCES.get(type);
  if (gc) throw new Unsupported(`the GC reference type ${gc} in ${where}`);
  throw new Unsupported(`value type 0x${type.toString(16)} in ${where}`);
}

/** The heap type of ref.null: func or extern; a type index is a typed reference. */
export function readHeapType(reader: Reader, where: string): void {
  const type = reader.peek();
  if (type < 0x40 || type >= 0x80) throw new Unsupported(`typed references (ref.null of a type in ${where})`);
  reader.at++;
  if (type === FUNCREF || type === EXTERNREF) return;
  if (VALUE_TYPES.has(type)) throw new Malformed(`ref.null of a numeric type in ${where}`);
  refuseType(type, where);
}

/** Reads every type of the section; throws Unsupported on the first that is not a plain function type. */
export function readTypes(bytes: Uint8Array, section: Section): number {
  const reader = Reader.of(bytes, section);
  const types = reader.u32();
  for (let index = 0; index < types; index++) {
    const form = reader.byte();
    if (form !== FUNCTION_FORM) {
      const what = GC_FORMS.get(form) ?? `type form 0x${form.toString(16)}`;
      throw new Unsupported(`${what} (type ${index})`);
    }
    // Parameters, then results.
    for (let list = 0; list < 2; list++) {
      for (let count = reader.u32(); count > 0; count--) readValueType(reader, `type ${index}`);
    }
  }
  reader.done('type');
  return types;
}

/**
 * The type of every global the module defines (exnref is refused there too), past each initial value.
 * Over MAX_GLOBALS the section is left unread: checkInstanceSize refuses it from its count.
 */
export function readGlobalTypes(bytes: Uint8Array, section: Section): void {
  const reader = Reader.of(bytes, section);
  const globals = reader.u32();
  if (globals > MAX_GLOBALS) return;
  for (let index = 0; index < globals; index++) {
    readValueType(reader, `global ${index}`);
    if (reader.byte() > 1) throw new Malformed('a global is neither mutable nor immutable');
    skipConstExpr(reader);
  }
  reader.done('global');
}
