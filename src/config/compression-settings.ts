/** The environment settings of compression on the wire (API.md "Compression on the wire"). */
import { DEFAULT_LEVELS, CONTENT_CODINGS } from '../core/content-codings.js';
import { boolSetting, levelsSetting } from './setting-options.js';

export const compressionSettings = {
  compression: boolSetting({
    env: 'TOPICGATE_COMPRESSION',
    read: 'switch',
    fallback: 'on',
    description:
      '`on`: JSON, NDJSON, CSV and Arrow reads are compressed (`zstd`, `br` or `gzip`, as `Accept-Encoding` ' +
      'allows), flushed batch by batch; `off`: never',
  }),
  compressionLevels: levelsSetting({
    env: 'TOPICGATE_COMPRESSION_LEVEL',
    read: 'levels',
    fallback: CONTENT_CODINGS.map((c) => `${c}:${DEFAULT_LEVELS[c]}`).join(','),
    description:
      'level per coding, e.g. `zstd:1,br:4,gzip:6` (a coding left out keeps its default; zstd 1-22, br 0-11, ' +
      'gzip 1-9), or one number for all three (1-9)',
  }),
};
