/** The environment settings of settled windows served as files (API.md "Windows as files"). */
import { intSetting, textSetting } from './setting-options.js';

export const filesSettings = {
  fileCacheDir: textSetting({
    env: 'TOPICGATE_FILE_CACHE_DIR',
    read: 'trimmed',
    fallback: 'data/files',
    description:
      'directory of the file cache: settled windows made into files once per strong ETag (`events.parquet`, ' +
      '`.arrow`, `.csv`, `.ndjson`); whole files of an earlier run are used again, partial ones removed at start',
  }),
  fileCacheBytes: intSetting({
    env: 'TOPICGATE_FILE_CACHE_BYTES',
    read: 'int',
    fallback: String(10 * 2 ** 30),
    shownDefault: '10 GiB',
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description:
      'bytes the file cache may hold; past it the least recently used files are removed (one being sent stays ' +
      'readable until its response ends)',
  }),
  fileRowGroupRows: intSetting({
    env: 'TOPICGATE_FILE_ROW_GROUP_ROWS',
    read: 'int',
    fallback: '65536',
    minimum: 1024,
    maximum: 16_777_216,
    description:
      "rows per row group of a window's Parquet file: smaller groups let a reader filtering on time or key fetch " +
      'fewer bytes, at some cost in size',
  }),
};
