/** The environment settings of what the response formats write. */
import { Type } from 'typebox';
import type { SettingOptions } from './setting-options.js';

export const formatSettings = {
  csvFormulas: Type.Union([Type.Literal('escape'), Type.Literal('keep')], {
    env: 'TOPICGATE_CSV_FORMULAS',
    read: 'csv-formulas',
    fallback: 'escape',
    description:
      "`escape`: CSV text cells and header names that begin with `=` `+` `-` `@`, tab or CR get a `'` before " +
      'them (OWASP; numbers and other typed columns as they are); `keep`: as stored',
  } satisfies SettingOptions),
};
