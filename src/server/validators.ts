/**
 * How fastify validates each part of a request. A query string, path parameters and headers are text, so their
 * values are coerced to the schema's types (`?limit=5` is the number 5, `?select=key` a list of one). A JSON body
 * already has types, and they are checked as sent: `"presign": null`, `"limit": "5"` or `"select": "key"` is a
 * 400 naming the field, not a value the gateway made up from it. Both validators are fastify's own
 * (@fastify/ajv-compiler), with one option apart.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

const OPTIONS = { removeAdditional: false, allErrors: false } as const;

export const validators: Pick<FastifyServerOptions, 'ajv' | 'schemaController'> = {
  ajv: { customOptions: { ...OPTIONS, coerceTypes: 'array' } },
  schemaController: {
    compilersFactory: {
      buildValidator(externalSchemas, options) {
        const text = AjvCompiler()(externalSchemas, options);
        const custom: AjvCompiler.Options = { ...options?.customOptions, coerceTypes: false };
        const json = AjvCompiler()(externalSchemas, { plugins: options?.plugins, customOptions: custom });
        return (route) => (route.httpPart === 'body' ? json(route) : text(route));
      },
    },
  },
};
