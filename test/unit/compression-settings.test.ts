/** TOPICGATE_COMPRESSION and TOPICGATE_COMPRESSION_LEVEL (API.md "Compression on the wire"): read, and named when bad. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { DEFAULT_LEVELS } from '../../src/core/content-codings.js';
import { loadConfig } from '../../src/server/load-config.js';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not throw`);
}

describe('compression settings', () => {
  it('default: on, at the measured levels', () => {
    const c = loadConfig({});
    expect(c.compression).toBe(true);
    expect(c.compressionLevels).toEqual(DEFAULT_LEVELS);
  });

  it.each<[string, boolean]>([
    ['on', true],
    ['off', false],
    ['', true],
  ])('TOPICGATE_COMPRESSION=%j -> %j', (value, expected) => {
    expect(loadConfig({ TOPICGATE_COMPRESSION: value }).compression).toBe(expected);
  });

  it.each<[string, Record<string, number>]>([
    ['zstd:5', { ...DEFAULT_LEVELS, zstd: 5 }],
    ['zstd:19,br:11,gzip:1', { zstd: 19, br: 11, gzip: 1 }],
    [' GZIP : 9 , br:0 ', { ...DEFAULT_LEVELS, gzip: 9, br: 0 }],
    ['4', { zstd: 4, br: 4, gzip: 4 }],
    ['', DEFAULT_LEVELS],
  ])('TOPICGATE_COMPRESSION_LEVEL=%j -> %j', (value, expected) => {
    expect(loadConfig({ TOPICGATE_COMPRESSION_LEVEL: value }).compressionLevels).toEqual(expected);
  });

  it.each([
    ['TOPICGATE_COMPRESSION', 'true', /^TOPICGATE_COMPRESSION="true" must be on or off$/],
    ['TOPICGATE_COMPRESSION', 'ON ', /^TOPICGATE_COMPRESSION="ON " must be on or off$/],
    [
      'TOPICGATE_COMPRESSION_LEVEL',
      'gzip:10',
      /^TOPICGATE_COMPRESSION_LEVEL="gzip:10" must be coding:level pairs \(zstd 1-22, br 0-11, gzip 1-9\)/,
    ],
    ['TOPICGATE_COMPRESSION_LEVEL', 'zstd:0', /^TOPICGATE_COMPRESSION_LEVEL="zstd:0" /],
    ['TOPICGATE_COMPRESSION_LEVEL', 'lz4:1', /^TOPICGATE_COMPRESSION_LEVEL="lz4:1" /],
    ['TOPICGATE_COMPRESSION_LEVEL', 'gzip:1,gzip:2', /^TOPICGATE_COMPRESSION_LEVEL="gzip:1,gzip:2" /],
    ['TOPICGATE_COMPRESSION_LEVEL', 'gzip', /^TOPICGATE_COMPRESSION_LEVEL="gzip" /],
    ['TOPICGATE_COMPRESSION_LEVEL', 'gzip:1:2', /^TOPICGATE_COMPRESSION_LEVEL="gzip:1:2" /],
    ['TOPICGATE_COMPRESSION_LEVEL', 'gzip:-1', /^TOPICGATE_COMPRESSION_LEVEL="gzip:-1" /],
    ['TOPICGATE_COMPRESSION_LEVEL', '10', /or one level for all \(1-9\)$/],
    ['TOPICGATE_COMPRESSION_LEVEL', '0', /^TOPICGATE_COMPRESSION_LEVEL="0" /],
  ])('%s=%j is named', (name, value, expected) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(expected);
  });
});
