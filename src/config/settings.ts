/**
 * The environment settings, one schema: each property names its variable (`env`), how its text is read (`read`),
 * its default, bounds and meaning (setting-options.ts). The loader walks it in this order; the Config type is
 * derived from it, so a setting is declared once.
 */
import { Type, type Static } from 'typebox';
import { compressionSettings } from './compression-settings.js';
import { filesSettings } from './files-settings.js';
import { flightSettings } from './flight-settings.js';
import { formatSettings } from './format-settings.js';
import { httpSettings } from './http-settings.js';
import { servingSettings } from './serving-settings.js';
import { trinoSettings } from './trino-settings.js';

export const SettingsSchema = Type.Object({
  ...trinoSettings,
  ...servingSettings,
  ...httpSettings,
  ...compressionSettings,
  ...formatSettings,
  ...filesSettings,
  ...flightSettings,
});

export type Settings = Static<typeof SettingsSchema>;
