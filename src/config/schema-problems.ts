/**
 * A config file checked against its schema: one problem per defect, named by the JSON pointer of the value at
 * fault, so the line a start-up error prints points into the file.
 */
import type { TLiteral, TSchema, TUnion } from 'typebox';
import { Type } from 'typebox';
import { Value } from 'typebox/value';

/** A union of string literals, one per name, in their order: the schema of a closed list of names. */
export function literalUnion<const T extends readonly string[]>(names: T): TUnion<[TLiteral<T[number]>]> {
  return Type.Union(names.map((n) => Type.Literal(n))) as unknown as TUnion<[TLiteral<T[number]>]>;
}

/**
 * `<pointer> <what is wrong>` for each defect of `value`. A property the schema forbids or requires is named by
 * its own pointer (the validator reports it on the object around it); a union none of whose members matched is one
 * problem, not one per member.
 */
export function schemaProblems(schema: TSchema, value: unknown): string[] {
  const errors = Value.Errors(schema, value);
  const unions = errors.filter((e) => e.keyword === 'anyOf').map((e) => `${e.schemaPath}/anyOf/`);
  return errors.flatMap((e): string[] => {
    const at = e.instancePath || '/';
    switch (e.keyword) {
      // A property under `additionalProperties: false` fails that schema too: the named property says it once.
      case 'boolean':
        return [];
      case 'additionalProperties':
        // Under `additionalProperties: <schema>` a property that fails that schema is named by its own errors.
        return e.params.additionalProperties
          .map((p) => `${e.instancePath}/${p}`)
          .filter(
            (at) =>
              !errors.some((o) => o.keyword !== 'boolean' && o !== e && `${o.instancePath}/`.startsWith(`${at}/`)),
          )
          .map((at) => `${at} Unexpected property`);
      case 'required':
        return e.params.requiredProperties.map((p) => `${e.instancePath}/${p} Expected required property`);
      case 'anyOf':
        return [`${at} Expected union value`];
      case 'type':
        if (unions.some((u) => e.schemaPath.startsWith(u))) return [];
        return [`${at} Expected ${String(e.params.type)}`];
      default:
        if (unions.some((u) => e.schemaPath.startsWith(u))) return [];
        return [`${at} ${e.message}`];
    }
  });
}
