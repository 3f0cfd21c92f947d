/**
 * The one reader of files that hold a secret or a key (the Trino password and token files, the JWT secret and
 * public key files): read whole, size-capped, trimmed (surrounding spaces, tabs and line ends are never part of a
 * secret: a file written by `echo` ends with a newline), and checked. Every failure is a SecretFileError naming the
 * setting and the path, and saying what is wrong, never what the file holds.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

/** Larger than any password, token, HS256 secret or PEM public key; a bigger file is a mistake. */
export const MAX_SECRET_FILE_BYTES = 65_536;

export interface SecretFileOptions {
  /** A key in PEM may span lines; a password, token or secret is one line (a second line is refused). */
  multiline?: boolean;
}

export class SecretFileError extends Error {
  constructor(
    /** ENOENT, EACCES, ... for a file that cannot be read; TOO_LARGE, EMPTY or MULTILINE for its content. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SecretFileError';
  }
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function checked(setting: string, path: string, raw: Buffer, o: SecretFileOptions): Buffer {
  const fail = (code: string, why: string) => new SecretFileError(code, `${setting}: ${path} ${why}`);
  if (raw.length > MAX_SECRET_FILE_BYTES)
    throw fail('TOO_LARGE', `is larger than ${MAX_SECRET_FILE_BYTES} bytes: not a secret file`);
  let start = 0;
  let end = raw.length;
  while (start < end && WHITESPACE.has(raw[start]!)) start++;
  while (end > start && WHITESPACE.has(raw[end - 1]!)) end--;
  const secret = raw.subarray(start, end);
  if (secret.length === 0) throw fail('EMPTY', 'is empty');
  if (!o.multiline && (secret.includes(0x0a) || secret.includes(0x0d)))
    throw fail('MULTILINE', 'holds more than one line: put the secret alone in the file');
  return secret;
}

function unreadable(setting: string, path: string, err: unknown): SecretFileError {
  const code = (err as NodeJS.ErrnoException).code ?? 'ERROR';
  return new SecretFileError(code, `${setting}: cannot read ${path} (${code})`);
}

/** Reads a secret file now (start-up). Throws SecretFileError. */
export function readSecretFile(setting: string, path: string, o: SecretFileOptions = {}): Buffer {
  let raw: Buffer;
  try {
    raw = readFileSync(path);
  } catch (err) {
    throw unreadable(setting, path, err);
  }
  return checked(setting, path, raw, o);
}

/** Reads a secret file without blocking (a file read again while serving, such as a rotated token). */
export async function readSecretFileAsync(setting: string, path: string, o: SecretFileOptions = {}): Promise<Buffer> {
  let raw: Buffer;
  try {
    raw = await readFile(path);
  } catch (err) {
    throw unreadable(setting, path, err);
  }
  return checked(setting, path, raw, o);
}
