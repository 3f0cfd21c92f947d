/**
 * The state URL (TOPICGATE_STATE_URL) names the database holding the gateway's state (cursors, loads, shared
 * quotas): `sqlite:<file>` / `sqlite::memory:` for one instance, `postgres://...` / `postgresql://...` for several.
 * No database module is loaded here, so telling the two apart costs neither.
 */

export function isPostgresUrl(stateUrl: string): boolean {
  return /^postgres(?:ql)?:\/\//.test(stateUrl);
}

export function isSqliteUrl(stateUrl: string): boolean {
  return stateUrl.startsWith('sqlite:');
}

/** The file of a `sqlite:<file>` URL (`sqlite::memory:` is an in-memory database). */
export function sqliteFileOf(stateUrl: string): string {
  if (!isSqliteUrl(stateUrl)) throw new Error(`not a sqlite: state URL: ${JSON.stringify(stateUrl)}`);
  const file = stateUrl.slice('sqlite:'.length);
  if (file === '') throw new Error('sqlite: state URL names no file (use sqlite:<file> or sqlite::memory:)');
  return file;
}

/** The refusal of a URL of neither kind; the URL may hold a password, so only its scheme is named. */
export function unsupportedStateUrl(stateUrl: string): Error {
  const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(stateUrl)?.[0] ?? '(none)';
  return new Error(`unsupported state URL scheme ${scheme}: use sqlite:<file> or postgres://...`);
}
