/**
 * The environment read by the settings table (settings.ts): each variable's text read as its entry says, a
 * problem per bad one naming the variable and what it must be. No secret is ever repeated in a problem.
 */
import { accessSync, constants } from 'node:fs';
import type { TSchema } from 'typebox';
import { durationMs } from '../core/duration.js';
import {
  CONTENT_CODINGS,
  DEFAULT_LEVELS,
  LEVEL_RANGES,
  type CodingLevels,
  type ContentCoding,
} from '../core/content-codings.js';
import { TRINO_ENCODINGS } from '../core/trino-encodings.js';
import type { SettingOptions } from './setting-options.js';
import { SettingsSchema, type Settings } from './settings.js';

const splitList = (raw: string) =>
  raw
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0);

/**
 * `https://user:secret@host/` -> `https://user:***@host/`: the userinfo of a URL (or of text that only looks like
 * one) without its password, so a problem or a log line can name the URL.
 */
export function redactUserinfo(text: string): string {
  return text.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^/?#]*)@/, (_m, scheme: string | undefined, info: string) => {
    const colon = info.indexOf(':');
    return `${scheme ?? ''}${colon >= 0 ? `${info.slice(0, colon)}:***` : '***'}@`;
  });
}

/** Every setting of the table read from `env` (unset: its fallback); problems are pushed onto `problems`. */
export function readSettings(env: NodeJS.ProcessEnv, problems: string[]): Settings {
  const settings: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(SettingsSchema.properties)) {
    const o = schema as unknown as TSchema & SettingOptions;
    const raw = env[o.env];
    const unset = raw === undefined || (raw === '' && !o.blankIsValue);
    settings[key] = readSetting(o, unset ? (o.fallback ?? '') : raw, problems);
  }
  return settings as Settings;
}

/** Reads one setting's text as its schema says; a problem names the variable and what it must be. */
function readSetting(schema: TSchema & SettingOptions, raw: string, problems: string[]): unknown {
  const { env: name } = schema;
  // A URL may carry a password: it is never repeated in a problem.
  const shown = ['url', 'optional-url', 'state-url'].includes(schema.read) ? redactUserinfo(raw) : raw;
  const bad = (what: string) => void problems.push(`${name}=${JSON.stringify(shown)} ${what}`);
  switch (schema.read) {
    case 'text':
      return raw;
    case 'trimmed': {
      const v = raw.trim();
      if (!v) problems.push(`${name} must not be empty`);
      return v;
    }
    case 'optional-url':
    case 'url':
      return schema.read === 'optional-url' && raw === '' ? '' : readUrl(raw, bad);
    case 'list': {
      const v = splitList(raw);
      if (v.length === 0) problems.push(`${name} must name at least one schema`);
      return v;
    }
    case 'secrets':
      return splitList(raw);
    case 'encodings':
      return readEncodings(raw, bad);
    case 'int':
      return readInt(schema as unknown as { minimum: number; maximum: number }, raw, bad);
    case 'bool':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      return bad('must be true or false');
    case 'switch':
      if (raw === 'on') return true;
      if (raw === 'off') return false;
      return bad('must be on or off');
    case 'levels':
      return readLevels(raw, bad);
    case 'duration': {
      const ms = durationMs(raw);
      if (!ms) bad('must be a duration like 30s, 15m, 12h, 7d');
      return ms;
    }
    case 'origins':
      return readOrigins(raw, bad);
    case 'hosts':
      return readHosts(raw, bad);
    case 'csv-formulas':
      if (raw !== 'escape' && raw !== 'keep') bad('must be escape or keep');
      return raw;
    case 'state-url':
      if (!/^sqlite:.+/.test(raw) && !/^postgres(ql)?:\/\/.+/.test(raw)) bad('must be sqlite:<file> or postgres://...');
      return raw;
    case 'file':
      return readFilePath(name, raw, problems);
    case 'port-or-off':
      if (raw.trim() === '') return 'default';
      if (raw.trim() === 'off') return 'off';
      return readInt({ minimum: 0, maximum: 65535 }, raw, (what) => bad(`${what}, or off`));
  }
}

function readUrl(raw: string, bad: (what: string) => void): string {
  const v = raw.replace(/\/+$/, '');
  if (!URL.canParse(v) || !/^https?:$/.test(new URL(v).protocol)) bad('must be an http(s) URL');
  return v;
}

function readInt(range: { minimum: number; maximum: number }, raw: string, bad: (what: string) => void): number {
  const { minimum, maximum } = range;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < minimum || n > maximum) bad(`must be an integer from ${minimum} to ${maximum}`);
  return n;
}

function readHosts(raw: string, bad: (what: string) => void): string[] {
  const v = splitList(raw).map((h) => h.toLowerCase());
  // `*` alone, or a host (`*.` before a domain: any name under it), optionally with :port.
  if (v.some((h) => h !== '*' && !/^(\[[0-9a-f:.]+\]|(\*\.)?[a-z0-9.-]+)(:\d{1,5})?$/.test(h)))
    bad('must be comma-separated host names (`*.example.com` for any name under it), optionally with :port');
  return v;
}

function readEncodings(raw: string, bad: (what: string) => void): string[] {
  const v = splitList(raw.toLowerCase());
  if (v.length === 1 && v[0] === 'none') return [];
  const known = new Set<string>(TRINO_ENCODINGS);
  if (v.length === 0 || v.some((e) => !known.has(e)) || new Set(v).size !== v.length)
    bad(`must be none, or some of ${TRINO_ENCODINGS.join(', ')} (comma-separated, each once)`);
  return v;
}

/**
 * `zstd:3,br:4,gzip:6` (a coding left out keeps its default) or one level for every coding (within every coding's
 * range, so it means something to each).
 */
function readLevels(raw: string, bad: (what: string) => void): CodingLevels {
  const levels: Record<string, number> = { ...DEFAULT_LEVELS };
  const inRange = (c: ContentCoding, n: number) =>
    Number.isInteger(n) && n >= LEVEL_RANGES[c].min && n <= LEVEL_RANGES[c].max;
  const shown = CONTENT_CODINGS.map((c) => `${c} ${LEVEL_RANGES[c].min}-${LEVEL_RANGES[c].max}`).join(', ');
  const what = `must be coding:level pairs (${shown}), comma-separated, or one level for all (1-9)`;
  if (/^\s*\d+\s*$/.test(raw)) {
    const n = Number(raw);
    if (!CONTENT_CODINGS.every((c) => inRange(c, n))) bad(what);
    for (const c of CONTENT_CODINGS) levels[c] = n;
    return levels as CodingLevels;
  }
  const seen = new Set<string>();
  for (const item of splitList(raw.toLowerCase())) {
    const [coding = '', level = '', ...rest] = item.split(':').map((x) => x.trim());
    const n = /^\d+$/.test(level) ? Number(level) : Number.NaN;
    if (rest.length || seen.has(coding) || !isCoding(coding) || !inRange(coding, n)) {
      bad(what);
      break;
    }
    seen.add(coding);
    levels[coding] = n;
  }
  return levels as CodingLevels;
}

const isCoding = (c: string): c is ContentCoding => (CONTENT_CODINGS as readonly string[]).includes(c);

/** An origin is scheme, host and port only: what a browser sends in `Origin`. */
function readOrigins(raw: string, bad: (what: string) => void): string[] {
  const v = splitList(raw);
  if (v.some((o) => !URL.canParse(o) || new URL(o).origin !== o.replace(/\/$/, '')))
    bad('must be comma-separated origins like https://app.example or http://127.0.0.1:5173');
  return v.map((o) => o.replace(/\/$/, ''));
}

/** Unset is ''; a set path must be a readable file (the secret in it is read later, and never shown). */
function readFilePath(name: string, raw: string, problems: string[]): string {
  if (raw !== '') {
    try {
      accessSync(raw, constants.R_OK);
    } catch (err) {
      problems.push(`${name}=${raw}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return raw;
}
