/**
 * Each setting is described once, where it is declared: the settings table of docs/configuration.md is generated from
 * the settings table (npm run docs:settings), and this test fails when the two differ.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../src/config/settings.js';
import type { SettingOptions } from '../../src/config/setting-options.js';
import { SETTINGS_PAGE, settingsTable, tableIn } from '../../scripts/settings-table.js';

const settings = Object.values(SettingsSchema.properties) as unknown as SettingOptions[];

describe("the configuration page's settings table", () => {
  it('is the one generated from the settings table (npm run docs:settings)', async () => {
    const page = readFileSync(SETTINGS_PAGE, 'utf8');
    expect(tableIn(page), 'run npm run docs:settings').toBe(await settingsTable());
  });

  it('has one row per variable, in the order of the table, with its description', async () => {
    const rows = (await settingsTable()).split('\n').slice(2, -1);
    expect(rows.map((r) => /^\| `(TOPICGATE_[A-Z_]+)`/.exec(r)?.[1])).toEqual(settings.map((s) => s.env));
    for (const [i, s] of settings.entries()) expect(rows[i]).toContain(s.description.replace(/\|/g, '\\|'));
  });

  it('every variable is named once, and described', () => {
    const envs = settings.map((s) => s.env);
    expect(new Set(envs).size).toBe(envs.length);
    for (const s of settings) expect(s.description.length, s.env).toBeGreaterThan(10);
  });

  it('a table without its markers is not mistaken for one', () => {
    expect(tableIn('# Configuration\n\n| a | b |\n')).toBeUndefined();
  });
});
