/** BIGINT beyond 2^53 through the real Trino protocol arrives exact (src/core/lossless-json.ts). */
import { describe, expect, it } from 'vitest';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { trinoUrl } from '../helpers.js';

describe('through the real Trino protocol', () => {
  it('BIGINT beyond 2^53 arrives exact; doubles and short integers stay numbers', async () => {
    const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
    const { columns, rows } = await trino.all(
      `SELECT BIGINT '9007199254740993', BIGINT '-9223372036854775808', BIGINT '9223372036854775807', ` +
        `BIGINT '42', DOUBLE '1.0E20', DOUBLE '12345678901234567.5', '1234567890123456789'`,
    );
    expect(columns.map((c) => c.type)).toEqual([
      'bigint',
      'bigint',
      'bigint',
      'bigint',
      'double',
      'double',
      'varchar(19)',
    ]);
    expect(rows).toEqual([
      [
        '9007199254740993',
        '-9223372036854775808',
        '9223372036854775807',
        42,
        1e20,
        12345678901234568,
        '1234567890123456789',
      ],
    ]);
  });
});
