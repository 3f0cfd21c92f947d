/** The Trino connection as the settings describe it: files read at start-up, the source and tag always set. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/load-config.js';
import { httpTrinoOptions } from '../../src/server/http-trino-options.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-trino-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('httpTrinoOptions', () => {
  it('plain: the user, source topicgate and client tag topicgate, the spooling defaults, nothing else', () => {
    expect(httpTrinoOptions(loadConfig({ TOPICGATE_TRINO_USER: 'gw' }))).toEqual({
      server: 'http://127.0.0.1:18080',
      user: 'gw',
      source: 'topicgate',
      clientTags: ['topicgate'],
      encodings: ['json+zstd', 'json+lz4', 'json'],
      segmentFetch: 4,
    });
  });

  it('encodings and segment fetches from TOPICGATE_TRINO_ENCODING and TOPICGATE_TRINO_SEGMENT_FETCH', () => {
    const o = (env: Record<string, string>) => httpTrinoOptions(loadConfig(env));
    expect(o({ TOPICGATE_TRINO_ENCODING: 'none' }).encodings).toEqual([]);
    expect(o({ TOPICGATE_TRINO_ENCODING: ' JSON+LZ4 , json ' }).encodings).toEqual(['json+lz4', 'json']);
    expect(o({ TOPICGATE_TRINO_SEGMENT_FETCH: '16' }).segmentFetch).toBe(16);
  });

  it.each([
    ['TOPICGATE_TRINO_ENCODING', 'json+gzip'],
    ['TOPICGATE_TRINO_ENCODING', 'none,json'],
    ['TOPICGATE_TRINO_ENCODING', 'json,json'],
    ['TOPICGATE_TRINO_ENCODING', ','],
    ['TOPICGATE_TRINO_SEGMENT_FETCH', '0'],
    ['TOPICGATE_TRINO_SEGMENT_FETCH', '65'],
  ])('%s=%s stops start-up naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}=`));
  });

  it('https with a CA bundle and a password file (its first line)', () => {
    const ca = write('ca.pem', 'PEM');
    const pw = write('pw', 'p@ss word\n');
    const o = httpTrinoOptions(
      loadConfig({
        TOPICGATE_TRINO_URL: 'https://127.0.0.1:8443',
        TOPICGATE_TRINO_CA_FILE: ca,
        TOPICGATE_TRINO_PASSWORD_FILE: pw,
      }),
    );
    expect([String(o.ca), o.password, o.tokenFile]).toEqual(['PEM', 'p@ss word', undefined]);
  });

  it('a password from the environment, or a token file (read by the port, not here)', () => {
    const https = { TOPICGATE_TRINO_URL: 'https://127.0.0.1:8443' };
    expect(httpTrinoOptions(loadConfig({ ...https, TOPICGATE_TRINO_PASSWORD: 'x' })).password).toBe('x');
    const token = write('token', 't');
    const o = httpTrinoOptions(loadConfig({ ...https, TOPICGATE_TRINO_TOKEN_FILE: token }));
    expect([o.tokenFile, 'password' in o]).toEqual([token, false]);
  });
});
