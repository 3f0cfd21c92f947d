/**
 * JSON text that depends only on a value's content: object members in sorted order, and the values JSON cannot
 * write (bigint, Infinity, bytes, Map) written as tagged objects instead of throwing or turning into null. Equal
 * values give equal text in every process, so a hash of it is stable across instances and restarts.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value)) ?? 'undefined';
}

function canonical(v: unknown): unknown {
  if (typeof v === 'bigint') return { $bigint: v.toString() };
  if (typeof v === 'number' && !Number.isFinite(v)) return { $number: String(v) };
  if (v === null || typeof v !== 'object') return typeof v === 'function' || typeof v === 'symbol' ? undefined : v;
  if (v instanceof Uint8Array) return { $bytes: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex') };
  if (v instanceof Date) return { $date: v.toISOString() };
  if (v instanceof Map) {
    const entries = [...v.entries()].map(([k, x]) => [canonical(k), canonical(x)] as const);
    return { $map: entries.sort((a, b) => compare(JSON.stringify(a[0]), JSON.stringify(b[0]))) };
  }
  if (v instanceof Set) {
    return { $set: [...v].map(canonical).sort((a, b) => compare(JSON.stringify(a), JSON.stringify(b))) };
  }
  if (Array.isArray(v)) return v.map((x) => canonical(x) ?? null);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v).sort()) {
    const x = canonical((v as Record<string, unknown>)[key]);
    if (x !== undefined) out[key] = x;
  }
  // Inserted in sorted order; integer-like keys come first in any engine (ECMAScript's own key order): still fixed.
  return out;
}

/**
 * JSON text of a value built by our own code (plan nodes): members in the order that code wrote them, which is fixed
 * for equal inputs, so no sorting is needed (several times faster than canonicalJson on a plan); bigint, Infinity,
 * Map and Set are written as canonicalJson writes them.
 */
export function builtJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'bigint') return { $bigint: v.toString() };
      if (typeof v === 'number' && !Number.isFinite(v)) return { $number: String(v) };
      if (v instanceof Map || v instanceof Set) return canonical(v);
      return v;
    }) ?? 'undefined'
  );
}

function compare(a = '', b = ''): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
