/**
 * Where a cursor is stored: under its name and its owner's principal id, so each principal has
 * names of its own. Another principal's cursor of the same name is a different cursor: nothing a caller asks for
 * (create, read, anything) ever meets it, so no answer can tell whether it exists. Cursor names have no `/` (the
 * route's pattern), so the key is the name, a `/`, and the owner's id URI-encoded (an id is any text).
 *
 * Cursors stored before keys had owners are keyed by their bare name, with their owner's bare name beside them:
 * core/principal-ids.ts legacyOwnerId says which principal that is now (an API key of that name, never a token).
 */
import { ApiError } from '../core/errors.js';
import { legacyOwnerId } from '../core/principal-ids.js';
import type { CursorRecord, CursorStore } from './cursor-store.js';
import type { StatefulCaller } from '../access/stateful-caller.js';

/** The store key of `name` owned by the principal `ownerId`. */
export function cursorKey(name: string, ownerId: string): string {
  return `${name}/${encodeURIComponent(ownerId)}`;
}

/** The name a stored cursor is shown by: its key up to the first `/`, or all of an old, bare key. */
export function cursorName(key: string): string {
  const at = key.indexOf('/');
  return at < 0 ? key : key.slice(0, at);
}

/** The principal id that owns a stored cursor (an old one's bare owner mapped to today's id). */
export function ownerOf(c: CursorRecord): string {
  return c.name.includes('/') ? c.owner : legacyOwnerId(c.owner);
}

/** The caller's own cursor of this name: under its id, or stored before ids with an owner that maps to it. */
export async function ownCursor(
  store: CursorStore,
  name: string,
  caller: StatefulCaller,
): Promise<CursorRecord | null> {
  const mine = await store.get(cursorKey(name, caller.id));
  if (mine) return mine;
  const old = await store.get(name);
  return old && ownerOf(old) === caller.id ? old : null;
}

/**
 * Another principal's cursor of this name on a topic the caller administers (API.md "Access": an admin reaches
 * others' cursors); several such are a 409 naming their owners, since the name alone does not say which.
 */
export async function administeredCursor(
  store: CursorStore,
  name: string,
  caller: StatefulCaller,
): Promise<CursorRecord | null> {
  const theirs = (await store.named(name)).filter((c) => caller.admin(c.topic));
  if (theirs.length > 1) {
    throw new ApiError(
      'TG_CURSOR_CONFLICT',
      `${theirs.length} principals have a cursor named ${JSON.stringify(name)} on topics this caller administers`,
      { owners: theirs.map(ownerOf) },
    );
  }
  return theirs[0] ?? null;
}
