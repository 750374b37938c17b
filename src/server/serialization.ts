// Response serializers (fast-json-stringify, Fastify's own compiler), built on a route's first answer
// instead of at start-up.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type SerializerCompiler = ReturnType<SerializerFactory>;
type RouteDefinition = Parameters<SerializerCompiler>[0];
type Serializer = ReturnType<SerializerCompiler>;

/** Fastify's default serializer factory: what `serializerOnFirstUse` defers, and what the schema test runs eagerly. */
export const responseSerializerFactory: SerializerFactory = SerializerSelector();

/**
 * Fastify compiles a serializer for every response schema of every route when the route registers. That
 * generated code held about 5 MB of an idle node's RSS (the goal is 120 MB), for answers many nodes
 * never give. Each serializer is now compiled when its route first answers with that status, by the same
 * compiler with the same options; test/server/schema-compile.test.ts compiles them all eagerly so a schema
 * fast-json-stringify refuses still fails before release.
 */
export function serializerOnFirstUse(...factoryArgs: Parameters<SerializerFactory>): SerializerCompiler {
  const compile = responseSerializerFactory(...factoryArgs);
  return (route: RouteDefinition): Serializer => {
    let serialize: Serializer | null = null;
    return (doc) => (serialize ??= compile(route))(doc);
  };
}
