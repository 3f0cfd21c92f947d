/**
 * The one secret-file reader: trimmed, size-capped, one line unless a key may span lines; every refusal names the
 * setting and the path and says what is wrong, never what the file holds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MAX_SECRET_FILE_BYTES,
  readSecretFile,
  readSecretFileAsync,
  SecretFileError,
} from '../../src/core/secret-file.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-secret-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SECRET = 's3cr3t-value-never-shown';
const file = (name: string, content: string | Buffer) => {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
};

function refusal(f: () => unknown): SecretFileError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(SecretFileError);
    return err as SecretFileError;
  }
  throw new Error('expected a refusal');
}

describe('readSecretFile', () => {
  it('trims surrounding whitespace and line ends (echo, CRLF editors)', async () => {
    for (const [name, content] of [
      ['lf', `${SECRET}\n`],
      ['crlf', `${SECRET}\r\n`],
      ['spaces', `  ${SECRET}\t \n\n`],
    ] as const) {
      const p = file(name, content);
      expect(readSecretFile('S', p).toString()).toBe(SECRET);
      expect((await readSecretFileAsync('S', p)).toString()).toBe(SECRET);
    }
  });

  it('a key may span lines when the setting allows it; a secret may not', () => {
    const pem = '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n';
    const p = file('pem', pem);
    expect(readSecretFile('KEY', p, { multiline: true }).toString()).toBe(pem.trim());
    const err = refusal(() => readSecretFile('TOPICGATE_TRINO_PASSWORD_FILE', file('two', `${SECRET}\nsecond`)));
    expect(err.code).toBe('MULTILINE');
    expect(err.message).toMatch(/^TOPICGATE_TRINO_PASSWORD_FILE: \S+two holds more than one line/);
  });

  it.each([
    ['empty', () => file('empty', ' \n'), 'EMPTY', 'is empty'],
    ['too large', () => file('large', SECRET.repeat(MAX_SECRET_FILE_BYTES)), 'TOO_LARGE', 'is larger than'],
    ['missing', () => join(dir, 'missing'), 'ENOENT', 'cannot read'],
    ['a folder', () => dir, 'EISDIR', 'cannot read'],
  ])('%s: refused naming the setting and the path, never the content', async (_n, make, code, why) => {
    const p = make();
    const err = refusal(() => readSecretFile('THE_SETTING', p));
    expect([err.code, err.message.startsWith(`THE_SETTING: `), err.message.includes(p)]).toEqual([code, true, true]);
    expect(err.message).toContain(why);
    expect(err.message).not.toContain(SECRET);
    await expect(readSecretFileAsync('THE_SETTING', p)).rejects.toMatchObject({ code });
  });
});
