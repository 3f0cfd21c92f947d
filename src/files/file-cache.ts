/**
 * The file cache of settled windows (API.md "Windows as files"): each file made once per key (the window's strong
 * ETag, which names the caller's row scope, so two scopes never share a file), then read by range until evicted.
 *
 * - Made once: concurrent requests for a key wait for the one being made (single flight). A make whose own
 *   requester went away fails for it alone: a waiter then makes the file itself.
 * - Whole or absent: a file is written under a temporary name and renamed into place when complete (rename(2) is
 *   atomic within a directory), so a failed make or a crash never leaves a partial file under a key's name; the
 *   temporary file of a failed make is removed, and those of a crashed process at the next start.
 * - Bounded: past `maxBytes` the least recently used files are removed. A file being sent is read through a file
 *   descriptor opened before its response starts: on Linux (POSIX) an open descriptor keeps an unlinked file's
 *   bytes readable until it is closed, so eviction never cuts a response; the disk space is freed at that close.
 * - Files made by an earlier run under the same directory are used again: a file's name is the hash of its key,
 *   and a window's tag is the same for the same settings.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** A cached file opened for one response: close it when the response ends (or use its stream, which does). */
export interface FileLease {
  readonly handle: FileHandle;
  readonly size: number;
  /** When the file was made (its Last-Modified). */
  readonly madeMs: number;
  /** Found made (true) or made for this request (false). */
  readonly hit: boolean;
}

/** What the cache counts (the files plugin exports them to /metrics). */
export interface FileCacheCounts {
  hit(): void;
  made(bytes: number): void;
  evicted(bytes: number): void;
  /** The bytes and files held now. */
  held(bytes: number, files: number): void;
}

interface Entry {
  name: string;
  size: number;
  madeMs: number;
}

interface Flight {
  done: Promise<void>;
  /** The requester that makes the file went away: its failure is not the waiters'. */
  abandoned: () => boolean;
}

const TEMP = '.tmp-';

export class FileCache {
  /** By file name (the key's hash), least recently used first (a Map keeps insertion order; a use re-inserts). */
  private readonly entries = new Map<string, Entry>();
  private readonly flights = new Map<string, Flight>();
  private bytes = 0;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly counts: FileCacheCounts,
  ) {
    // The gateway's user alone may list or read the files (each holds rows of its caller's scope).
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.adopt();
  }

  /** The file's name for a key: a hash (a tag holds quotes, and names nothing a directory listing should show). */
  static nameOf(key: string, extension: string): string {
    return `${createHash('sha256').update(key).digest('hex')}.${extension}`;
  }

  /**
   * The file of `key`, opened: found, or made by `make` (which writes the whole file at the path it is given and
   * resolves) once for all concurrent callers. `signal` is this caller's: aborted, its make is abandoned.
   */
  async open(
    key: string,
    extension: string,
    signal: AbortSignal,
    make: (path: string) => Promise<void>,
  ): Promise<FileLease> {
    const name = FileCache.nameOf(key, extension);
    for (let hit = true; ;) {
      const found = await this.openMade(name, hit);
      if (found) return found;
      const flight = this.flights.get(name);
      if (flight) {
        await flight.done.catch((err: unknown) => {
          if (!flight.abandoned() || signal.aborted) throw err;
        });
        continue;
      }
      hit = false;
      const done = this.make(name, make);
      this.flights.set(name, { done, abandoned: () => signal.aborted });
      try {
        await done;
      } finally {
        this.flights.delete(name);
      }
    }
  }

  /** The file made before under `name`, opened and now the most recently used; null when there is none. */
  private async openMade(name: string, hit: boolean): Promise<FileLease | null> {
    const entry = this.entries.get(name);
    if (!entry) return null;
    let handle: FileHandle;
    try {
      handle = await open(join(this.dir, name), 'r');
    } catch {
      // Removed behind the cache's back: made again.
      this.forget(name);
      return null;
    }
    if (this.entries.get(name) === entry) {
      this.entries.delete(name);
      this.entries.set(name, entry);
    }
    if (hit) this.counts.hit();
    return { handle, size: entry.size, madeMs: entry.madeMs, hit };
  }

  private async make(name: string, make: (path: string) => Promise<void>): Promise<void> {
    const temp = join(this.dir, `${TEMP}${randomBytes(8).toString('hex')}-${name}`);
    try {
      await make(temp);
      const { size, mtimeMs } = await stat(temp);
      await rename(temp, join(this.dir, name));
      this.add({ name, size, madeMs: Math.floor(mtimeMs) });
      this.counts.made(size);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  private add(entry: Entry): void {
    this.forget(entry.name);
    this.entries.set(entry.name, entry);
    this.bytes += entry.size;
    this.evict();
  }

  /** Least recently used first, until the cache holds at most maxBytes (open descriptors keep their bytes). */
  private evict(): void {
    for (const entry of this.entries.values()) {
      if (this.bytes <= this.maxBytes) break;
      this.forget(entry.name);
      rmSync(join(this.dir, entry.name), { force: true });
      this.counts.evicted(entry.size);
    }
    this.counts.held(this.bytes, this.entries.size);
  }

  private forget(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.entries.delete(name);
    this.bytes -= entry.size;
  }

  /** At start: temporary files of an interrupted make are removed; whole files are kept, oldest first. */
  private adopt(): void {
    const found: Entry[] = [];
    for (const name of readdirSync(this.dir)) {
      const path = join(this.dir, name);
      if (name.startsWith(TEMP)) {
        rmSync(path, { force: true });
        continue;
      }
      if (!/^[0-9a-f]{64}\.[a-z]+$/.test(name)) continue;
      const s = statSync(path);
      if (s.isFile()) found.push({ name, size: s.size, madeMs: Math.floor(s.mtimeMs) });
    }
    found.sort((a, b) => a.madeMs - b.madeMs);
    for (const entry of found) this.add(entry);
  }
}
