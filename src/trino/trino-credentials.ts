/**
 * How the gateway authenticates to Trino: nothing, a password (HTTP basic, with the connection's user), or a
 * bearer token read from a file that may be replaced while the gateway runs (a rotated secret). The secret goes
 * into the Authorization header and nowhere else: no error or log message here carries it.
 */
import { stat } from 'node:fs/promises';
import { readSecretFileAsync, SecretFileError } from '../core/secret-file.js';
import { TrinoUnavailableError } from './trino-errors.js';

export interface CredentialOptions {
  user: string;
  password?: string;
  /** A file holding a bearer token (surrounding whitespace ignored). */
  tokenFile?: string;
  /** How often the token file is checked for a change (ms); a 401 checks at once. */
  tokenRecheckMs?: number;
}

export class TrinoCredentials {
  private token?: { value: string; version: string; checkedAt: number };
  private readonly basic?: string;

  constructor(private readonly options: CredentialOptions) {
    if (options.password !== undefined && options.tokenFile !== undefined) {
      throw new Error('Trino credentials: a password or a token file, not both');
    }
    if (options.password !== undefined) {
      this.basic = `Basic ${Buffer.from(`${options.user}:${options.password}`).toString('base64')}`;
    }
  }

  /** True when requests carry a secret (which then goes only to the server's own origin, over https). */
  get present(): boolean {
    return this.basic !== undefined || this.options.tokenFile !== undefined;
  }

  /** The Authorization header's value, if any. */
  async authorization(): Promise<string | undefined> {
    if (this.basic) return this.basic;
    if (this.options.tokenFile === undefined) return undefined;
    const recheckMs = this.options.tokenRecheckMs ?? 1_000;
    if (!this.token || Date.now() - this.token.checkedAt >= recheckMs) await this.loadToken();
    return `Bearer ${this.token!.value}`;
  }

  /** After a 401: reads the token file again; true when the token changed (so one more try may succeed). */
  async renewed(): Promise<boolean> {
    if (this.options.tokenFile === undefined) return false;
    const before = this.token?.value;
    await this.loadToken(true);
    return this.token!.value !== before;
  }

  private async loadToken(force = false): Promise<void> {
    const file = this.options.tokenFile!;
    try {
      const s = await stat(file);
      // A rotation writes a new file (inode) or rewrites it (size, mtime): either changes the version.
      const version = `${s.ino}:${s.size}:${s.mtimeMs}`;
      if (force || this.token?.version !== version) {
        const value = (await readSecretFileAsync('TOPICGATE_TRINO_TOKEN_FILE', file)).toString('utf8');
        this.token = { value, version, checkedAt: Date.now() };
      } else {
        this.token.checkedAt = Date.now();
      }
    } catch (err) {
      // Mid-rotation (the file briefly missing or empty): keep the token that worked until now.
      if (this.token) {
        this.token.checkedAt = Date.now();
        return;
      }
      if (err instanceof SecretFileError) throw new TrinoUnavailableError(err.message);
      const code = (err as NodeJS.ErrnoException).code ?? 'ERROR';
      throw new TrinoUnavailableError(`TOPICGATE_TRINO_TOKEN_FILE: cannot read ${file} (${code})`);
    }
  }
}
