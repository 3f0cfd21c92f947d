/**
 * `npm run docs:settings`: writes the table of environment settings in docs/configuration.md from the settings table
 * (src/config/*-settings.ts), so each setting is described once, where it is declared. `--check` exits 1 when the
 * page's table differs instead of writing it (a unit test checks the same).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import type { SettingOptions } from '../src/config/setting-options.js';
import { SettingsSchema } from '../src/config/settings.js';

export const SETTINGS_PAGE = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
const TABLE_START = '<!-- The settings table is generated from src/config/*-settings.ts: npm run docs:settings -->';
const TABLE_END = '<!-- End of the generated settings table -->';

/** A table cell: a `|` would end the cell, even inside code. */
const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The settings table as the configuration page shows it, formatted as the rest of that page is. */
export async function settingsTable(): Promise<string> {
  const rows = Object.values(SettingsSchema.properties).map((schema) => {
    const s = schema as unknown as SettingOptions;
    const shown = s.shownDefault ?? (s.fallback ? `\`${s.fallback}\`` : 'none');
    return `| \`${s.env}\` | ${cell(s.description)} | ${cell(shown)} |`;
  });
  const table = ['| variable | meaning | default |', '| --- | --- | --- |', ...rows].join('\n');
  const options = await resolveConfig(SETTINGS_PAGE);
  return format(table, { ...options, parser: 'markdown' });
}

/** The table between the markers of a page's text, or undefined when the markers are missing. */
export function tableIn(page: string): string | undefined {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) return undefined;
  return `${page.slice(start + TABLE_START.length, end).trim()}\n`;
}

async function main(): Promise<void> {
  const page = readFileSync(SETTINGS_PAGE, 'utf8');
  const current = tableIn(page);
  if (current === undefined) throw new Error(`${SETTINGS_PAGE}: the settings table's markers are missing`);
  const table = await settingsTable();
  if (process.argv.includes('--check')) {
    if (current !== table) {
      process.stderr.write(`${SETTINGS_PAGE}: the settings table is out of date: run npm run docs:settings\n`);
      process.exit(1);
    }
    return;
  }
  const start = page.indexOf(TABLE_START) + TABLE_START.length;
  writeFileSync(SETTINGS_PAGE, `${page.slice(0, start)}\n\n${table}\n${page.slice(page.indexOf(TABLE_END))}`);
  process.stdout.write(`${current === table ? 'unchanged' : 'wrote'} the settings table of ${SETTINGS_PAGE}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();
