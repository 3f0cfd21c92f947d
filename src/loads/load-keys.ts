/**
 * Where a load is stored: under its name and its owner's principal id, as cursors are (cursors/cursor-keys.ts), so
 * each principal has load names of its own. Another principal's load of the same name is a different load: nothing
 * a caller asks for ever meets it, so no answer tells whether it exists. Load names have no `/` (the route's
 * pattern), so the key is the name, a `/`, and the owner's id URI-encoded (an id is any text).
 *
 * Loads stored before keys had owners are keyed by their bare name. Their owner column holds a principal id, or,
 * from the first builds of loads, a bare API key name: legacyOwnerId says which principal that is now.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../core/errors.js';
import { ANONYMOUS_ID, legacyOwnerId } from '../core/principal-ids.js';
import { markerComment } from '../query/sql/sql-text.js';
import type { StatefulCaller } from '../access/stateful-caller.js';
import type { LoadRecord, LoadStore } from './load-store.js';

/** The store key of `name` owned by the principal `ownerId`. */
export function loadKey(name: string, ownerId: string): string {
  return `${name}/${encodeURIComponent(ownerId)}`;
}

/** The name a stored load is shown by: its key up to the first `/`, or all of an old, bare key. */
export function loadName(key: string): string {
  const at = key.indexOf('/');
  return at < 0 ? key : key.slice(0, at);
}

/** The principal id that owns a stored load (an old one's bare owner name mapped to today's id). */
export function ownerOf(l: Pick<LoadRecord, 'name' | 'owner'>): string {
  if (l.name.includes('/') || l.owner === ANONYMOUS_ID || /^(key|jwt):/.test(l.owner)) return l.owner;
  return legacyOwnerId(l.owner);
}

/**
 * The marker comment of a load's statements (loads/earlier-statements.ts finds an earlier run's by it): the name
 * and a digest of the key, so two principals' loads of one name never end each other's statements. An old, bare
 * key keeps the marker its runs always had.
 */
export function loadMarker(key: string): string {
  const name = loadName(key);
  if (name === key) return markerComment(['topicgate', 'load', name]);
  const digest = createHash('sha256').update(key).digest('hex').slice(0, 16);
  return markerComment(['topicgate', 'load', name, digest]);
}

/** The caller's own load of this name: under its key, or stored before keys with an owner that maps to it. */
export async function ownLoad(store: LoadStore, name: string, caller: StatefulCaller): Promise<LoadRecord | null> {
  const mine = await store.get(loadKey(name, caller.id));
  if (mine) return mine;
  const old = await store.get(name);
  return old && ownerOf(old) === caller.id ? old : null;
}

/**
 * Another principal's load of this name on a topic the caller administers (API.md "Access": an admin reaches
 * others' loads); several such are a 409 naming their owners, since the name alone does not say which.
 */
export async function administeredLoad(
  store: LoadStore,
  name: string,
  caller: StatefulCaller,
): Promise<LoadRecord | null> {
  const theirs = (await store.named(name)).filter((l) => caller.admin(l.topic));
  if (theirs.length > 1) {
    throw new ApiError(
      'TG_LOAD_CONFLICT',
      `${theirs.length} principals have a load named ${JSON.stringify(name)} on topics this caller administers`,
      { owners: theirs.map(ownerOf) },
    );
  }
  return theirs[0] ?? null;
}
