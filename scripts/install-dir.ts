/**
 * A tool fetched into the cache once (the local Trino, the Schema Registry) is unpacked under names of this process
 * and moved into place whole, with its `.complete` marker inside: of two processes fetching at once (a test run and
 * a benchmark on another port), the first to finish is the one kept, and neither ever sees half an install.
 */
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The marker of a whole install in `dir`. */
export const completeMarker = (dir: string) => join(dir, '.complete');

/** Marks `staged` whole and moves it to `installDir`, unless another process's whole copy got there first. */
export function moveIntoPlace(staged: string, installDir: string): void {
  writeFileSync(completeMarker(staged), new Date().toISOString());
  if (existsSync(completeMarker(installDir))) return;
  rmSync(installDir, { recursive: true, force: true });
  try {
    renameSync(staged, installDir);
  } catch (e) {
    if (!existsSync(completeMarker(installDir))) throw e;
  }
}
