// Response serializers compiled once per schema and process, when first used. Fastify compiles every
// route's response schemas when an instance starts; the api runs two instances (public and internal) over
// the same schemas, and tests start one per file, so each compile is kept by what it was made from (the
// schema's JSON, the shared schemas and the options) and handed out again: the code made depends on
// nothing else.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const compile = SerializerSelector();
const compiled = new Map<string, Serializer>();

function compiledFor(key: string, build: () => Serializer): Serializer {
  const known = compiled.get(key);
  if (known) return known;
  const serializer = build();
  compiled.set(key, serializer);
  return serializer;
}

export function sharedSerializers(): SerializerFactory {
  return (externalSchemas, serializerOpts) => {
    const shared = JSON.stringify([externalSchemas, serializerOpts ?? {}]);
    const build = compile(externalSchemas, serializerOpts);
    return (route) => {
      // Compiled at the first answer that needs it, not at start: most of a start's CPU otherwise, for
      // routes a process may never answer.
      let serializer: Serializer | undefined;
      return ((data: unknown) => {
        serializer ??= compiledFor(`${shared}\n${JSON.stringify(route.schema)}`, () => build(route));
        return serializer(data);
      }) as Serializer;
    };
  };
}
