/**
 * How fastify validates each part of a request. A query string, path parameters and headers are text, so their
 * values are coerced to the schema's types (`?limit=5` is the number 5, `?select=key` a list of one). A JSON body
 * already has types, and they are checked as sent: `"presign": null`, `"limit": "5"` or `"select": "key"` is a
 * 400 naming the field, not a value the gateway made up from it. Both validators are fastify's own
 * (@fastify/ajv-compiler), with one option apart; responses are serialized by fastify's own fast-json-stringify.
 *
 * Compiled once per process: each schema is compiled the first time an app of the process needs it, and every app
 * built later (the tests build hundreds in one process) uses that function. Built per app, as fastify does, each
 * app compiled Ajv's meta-schema and every route schema afresh: some 120 ms of CPU an app, and 0.4 MB of heap
 * that stayed behind after the app was closed. A compiled function depends only on the schema's text and the
 * compiler's options, so that is its key (fastify hands each app copies of the route schemas).
 */
import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

const OPTIONS = { removeAdditional: false, allErrors: false } as const;

/** Distinct schema texts kept per compiler; past it the cache starts again (a process has a few hundred). */
export const MAX_COMPILED_SCHEMAS = 4096;

/** `compile`, once per schema text for each key (the compiler's options and shared schemas). */
export function compiledOnce<R extends { schema?: unknown }, F>(
  cache: Map<string, Map<string, F>>,
  key: string,
  compile: (route: R) => F,
): (route: R) => F {
  let byText = cache.get(key);
  if (!byText) cache.set(key, (byText = new Map()));
  const compiled = byText;
  return (route) => {
    const text = JSON.stringify(route.schema);
    let fn = compiled.get(text);
    if (!fn) {
      if (compiled.size >= MAX_COMPILED_SCHEMAS) compiled.clear();
      compiled.set(text, (fn = compile(route)));
    }
    return fn;
  };
}

/** Fastify's pool of Ajv instances, one per set of options and shared schemas (so one for text, one for bodies). */
const ajvPool = AjvCompiler();
const serializer = SerializerSelector();
const validatorCache = new Map<string, Map<string, ReturnType<ReturnType<typeof ajvPool>>>>();
const serializerCache = new Map<string, Map<string, ReturnType<ReturnType<typeof serializer>>>>();

export const validators: Pick<FastifyServerOptions, 'ajv' | 'schemaController'> = {
  ajv: { customOptions: { ...OPTIONS, coerceTypes: 'array' } },
  schemaController: {
    compilersFactory: {
      buildValidator(externalSchemas, options) {
        const custom: AjvCompiler.Options = { ...options?.customOptions, coerceTypes: false };
        const jsonOptions = { plugins: options?.plugins, customOptions: custom };
        const key = JSON.stringify([externalSchemas, options?.customOptions]);
        const text = compiledOnce(validatorCache, `text ${key}`, ajvPool(externalSchemas, options));
        const json = compiledOnce(validatorCache, `json ${key}`, ajvPool(externalSchemas, jsonOptions));
        return (route) => (route.httpPart === 'body' ? json(route) : text(route));
      },
      buildSerializer(externalSchemas, options) {
        return compiledOnce(
          serializerCache,
          JSON.stringify([externalSchemas, options]),
          serializer(externalSchemas, options),
        );
      },
    },
  },
};
