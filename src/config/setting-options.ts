/**
 * How one environment setting is declared: its variable, how its text is read, its default and its meaning. The
 * meaning is the setting's one description: the settings table of docs/configuration.md is generated from it
 * (npm run docs:settings).
 */
import { Type } from 'typebox';

/** How a setting's text is read (read-settings.ts). */
export type Read =
  | 'text'
  | 'trimmed'
  | 'url'
  | 'list'
  | 'secrets'
  | 'int'
  | 'bool'
  | 'switch'
  | 'levels'
  | 'duration'
  | 'state-url'
  | 'encodings'
  | 'optional-url'
  | 'file'
  | 'origins'
  | 'hosts'
  | 'csv-formulas'
  | 'port-or-off';

export type SettingOptions = {
  env: string;
  read: Read;
  /** The text used when the variable is unset (and, unless `blankIsValue`, when it is empty). */
  fallback?: string;
  /** An empty value is read as given (and then refused) instead of meaning the default. */
  blankIsValue?: boolean;
  /** The default as the settings table says it, where the fallback text alone would not say it. */
  shownDefault?: string;
  description: string;
};

/** A setting read as text. */
export const textSetting = (o: SettingOptions) => Type.String(o);
/** A setting read as an integer within its bounds. */
export const intSetting = (o: SettingOptions & { minimum: number; maximum: number }) => Type.Integer(o);
/** A setting read as true or false. */
export const boolSetting = (o: SettingOptions) => Type.Boolean(o);
/** A setting read as a level per content coding (`zstd:3,br:4`). */
export const levelsSetting = (o: SettingOptions) =>
  Type.Object({ zstd: Type.Integer(), br: Type.Integer(), gzip: Type.Integer() }, o);
/** A setting read as a comma-separated list. */
export const listSetting = (o: SettingOptions) => Type.Array(Type.String(), o);
