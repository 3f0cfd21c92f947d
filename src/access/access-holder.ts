/**
 * The access state in force (authenticator, grants, row policies, public route groups), held in one place and
 * read at the moment of each check: a reload of the config's access blocks (server/access-reload.ts) puts a
 * whole new state in force at once, so every later request and every open follow sees either the old state or the
 * new one, never a mix. The query limiter is carried over: it counts the queries running now.
 */
import type { Access } from './create-access.js';

export class AccessHolder {
  private state: Access;
  private version = 0;

  constructor(initial: Access) {
    this.state = initial;
  }

  /** The state in force now. */
  get current(): Access {
    return this.state;
  }

  /** How many times a new state was put in force (0: the one built at start-up). */
  get generation(): number {
    return this.version;
  }

  /** Puts `next` in force for every check from now on, keeping the running queries' limiter. */
  swap(next: Access): void {
    this.state = Object.freeze({ ...next, queries: this.state.queries });
    this.version++;
  }
}
