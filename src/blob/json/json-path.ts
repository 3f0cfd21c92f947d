/**
 * JSON paths as written in the config file (`$.customer.address.country`, `$.items[0].sku`,
 * `$["key with.dots"]`, `$['it''s']`) read into a list of keys and indexes. The compiler escapes them again
 * for JSONPath and then for SQL (sql-text.ts jsonPathLiteral), so no path text reaches SQL as written.
 */
export class JsonPathError extends Error {}

export function parseJsonPath(path: string): (string | number)[] {
  if (!path.startsWith('$')) throw new JsonPathError(`${JSON.stringify(path)} must start with $`);
  const keys: (string | number)[] = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      const m = /^[^.[\]"'\s]+/.exec(path.slice(i + 1));
      if (!m) throw new JsonPathError(`${JSON.stringify(path)}: expected a key after '.' at ${i}`);
      keys.push(m[0]);
      i += 1 + m[0].length;
    } else if (c === '[') {
      const rest = path.slice(i + 1);
      const idx = /^(\d+)\]/.exec(rest);
      if (idx) {
        keys.push(Number(idx[1]));
        i += 1 + idx[0].length;
        continue;
      }
      const q = rest[0];
      if (q !== '"' && q !== "'")
        throw new JsonPathError(`${JSON.stringify(path)}: expected an index or a quoted key at ${i}`);
      let key = '';
      let j = 1;
      for (; j < rest.length; j++) {
        const d = rest[j]!;
        if (d === '\\' && j + 1 < rest.length) key += rest[++j];
        else if (d === q && rest[j + 1] === q) {
          key += q;
          j++;
        } else if (d === q) break;
        else key += d;
      }
      if (rest[j] !== q || rest[j + 1] !== ']')
        throw new JsonPathError(`${JSON.stringify(path)}: unterminated key at ${i}`);
      keys.push(key);
      i += j + 3;
    } else {
      throw new JsonPathError(`${JSON.stringify(path)}: unexpected ${JSON.stringify(c)} at ${i}`);
    }
  }
  if (keys.length === 0) throw new JsonPathError(`${JSON.stringify(path)} names no field`);
  return keys;
}
