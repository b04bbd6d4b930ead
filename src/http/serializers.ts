// Response serializers compiled once per schema and process. Fastify compiles every route's response
// schemas when an instance starts; the api runs two instances (public and internal) over the same
// schemas, and tests start one per file, so each compile is kept by what it was made from (the schema's
// JSON, the shared schemas and the options) and handed out again: the code made depends on nothing else.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const compile = SerializerSelector();
const compiled = new Map<string, Serializer>();

export function sharedSerializers(): SerializerFactory {
  return (externalSchemas, serializerOpts) => {
    const shared = JSON.stringify([externalSchemas, serializerOpts ?? {}]);
    const build = compile(externalSchemas, serializerOpts);
    return (route) => {
      const key = `${shared}\n${JSON.stringify(route.schema)}`;
      const known = compiled.get(key);
      if (known) return known;
      const serializer = build(route);
      compiled.set(key, serializer);
      return serializer;
    };
  };
}
