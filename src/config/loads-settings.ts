/**
 * The `loads` block of the config file (API.md "Loads run by Trino"): where loads may write. `targets` are
 * `catalog.schema` patterns in which `*` stands for any run of name characters within one part (never a `.`); a
 * load's target table must be in a schema one of them matches. The topics' catalog is refused whatever they say
 * (loads/load-target.ts).
 */
import { Type, type Static } from 'typebox';

/** Where loads may write when the config file does not say. */
export const DEFAULT_LOAD_TARGETS: readonly string[] = ['lake.*'];

const TargetPattern = Type.String({
  pattern: '^[a-z0-9_*]+\\.[a-z0-9_*]+$',
  description: '`catalog.schema` of lower-case names, digits, `_` and `*` (any run of those within the part)',
});

export const LoadsSchema = Type.Object(
  { targets: Type.Optional(Type.Array(TargetPattern, { maxItems: 256 })) },
  { additionalProperties: false },
);

export type LoadsFile = Static<typeof LoadsSchema>;

export interface LoadsSettings {
  readonly targets: readonly string[];
}

/** The block with its defaults. */
export function loadsSettingsOf(file: LoadsFile | undefined): LoadsSettings {
  return { targets: file?.targets ?? DEFAULT_LOAD_TARGETS };
}
