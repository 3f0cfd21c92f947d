/** A program from Debian's packages: named by a setting, found on the PATH, or where the package puts it. */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/**
 * The first of `setting` (an env value), `name` on the PATH (answering `-v`) and `/usr/sbin/<name>` (not on every
 * user's PATH) that runs; otherwise an error naming the setting and the Debian package to install.
 */
export function systemBinary(name: string, settingName: string, setting: string | undefined): string {
  for (const c of [setting, name, `/usr/sbin/${name}`].filter((c): c is string => !!c)) {
    if (c.includes('/')) {
      try {
        accessSync(c, constants.X_OK);
        return c;
      } catch {
        continue;
      }
    }
    if (spawnSync(c, ['-v'], { stdio: 'ignore' }).status === 0) return c;
  }
  throw new Error(
    `no ${name} binary (searched ${settingName}, the PATH, /usr/sbin); install Debian's ${name} package ` +
      '(bash scripts/test-deps.sh does, as root)',
  );
}
