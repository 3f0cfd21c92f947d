/**
 * Avro's values (as avsc decodes them: longs as bigint, decimals and fixed as bytes) in the forms the encoders take
 * (core/result-stream.ts), exactly: digits beyond 2^53 kept, decimals with their scale, every fractional digit.
 * Plain number arithmetic where a double is exact (the common case), BigInt beyond it.
 */

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function longValue(v: unknown): number | string {
  const n = v as bigint;
  return n >= MIN_SAFE && n <= MAX_SAFE ? Number(n) : n.toString();
}

export function floatValue(v: unknown): number | string {
  const n = v as number;
  return Number.isFinite(n) ? n : String(n);
}

/** Two's-complement big-endian bytes with `scale` -> exact decimal text ("-12.30"). */
export function decimalText(bytes: Buffer, scale: number): string {
  let n: number | bigint;
  if (bytes.length === 0) n = 0;
  else if (bytes.length <= 6)
    n = bytes.readIntBE(0, bytes.length); // exact in a double: the common case, fast
  else {
    let big = 0n;
    for (const b of bytes) big = (big << 8n) | BigInt(b);
    if ((bytes[0] ?? 0) & 0x80) big -= 1n << BigInt(bytes.length * 8);
    n = big;
  }
  const neg = n < 0;
  const digits = (neg ? -n : n).toString().padStart(scale + 1, '0');
  const text = scale > 0 ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return neg ? `-${text}` : text;
}

const pad = (n: number | bigint, w: number) => n.toString().padStart(w, '0');

/** Units since the epoch (ms or µs) -> Trino's timestamp text `YYYY-MM-DD HH:MM:SS.fff[fff]` (UTC). */
export function timestampText(v: unknown, perMs: 1 | 1000): string {
  // Microseconds since the epoch fit a double exactly until the year 2255: plain number arithmetic then.
  const units = typeof v === 'bigint' && v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v;
  let ms: number;
  let frac: number;
  if (typeof units === 'number') {
    ms = Math.floor(units / perMs);
    frac = units - ms * perMs;
  } else {
    const big = BigInt(units as bigint);
    const per = BigInt(perMs);
    let q = big / per;
    let r = big % per;
    if (r < 0n) {
      r += per;
      q -= 1n;
    }
    ms = Number(q);
    frac = Number(r);
  }
  const iso = new Date(ms).toISOString(); // 2026-11-01T00:00:00.123Z
  const digits = perMs === 1 ? '' : pad(frac, 3);
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}${digits}`;
}

/** Days since the epoch -> `YYYY-MM-DD`. */
export function dateText(v: unknown): string {
  return new Date((v as number) * 86_400_000).toISOString().slice(0, 10);
}

export function timeText(v: unknown, perMs: 1 | 1000): string {
  const full = timestampText(v, perMs);
  return full.slice(11);
}
