/**
 * How a command that starts local services (`npm run demo`, `trino:up`, `cluster:up`) stops what it started when it
 * is interrupted or fails. A terminal's Ctrl-C sends SIGINT to its whole foreground process group: npm, its shell
 * and the command all get it at once, and npm forwards it once more. So the services run detached (a session of
 * their own: the signal never reaches them), and the command itself stops them: on the first SIGINT, SIGTERM or
 * SIGHUP, later ones ignored while it does, each service stopped even when another fails, and only the services this
 * run started (one already running before is someone else's, and left alone). A failed start stops them the same
 * way (exitAfterStop).
 *
 * A stop can come while a start is under way: once stopping has begun, `startAllowed` refuses to start anything
 * more, so no service is started after the stops have looked for it.
 */

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** The conventional exit status of a process ended by a signal: 128 plus its number. */
const SIGNAL_EXIT = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

interface Stop {
  name: string;
  stop: () => Promise<unknown>;
}

const stops: Stop[] = [];
let stopping: Promise<void> | undefined;
let handled = false;

/** Registers the stop of a service this run is about to start (before starting it, so an interrupted start counts). */
export function startedHere(name: string, stop: () => Promise<unknown>): void {
  stops.push({ name, stop });
}

/** Throws once stopping has begun: called right before a service is started. */
export function startAllowed(what: string): void {
  if (stopping !== undefined) throw new Error(`not starting ${what}: stopping`);
}

/** Whether stopping has begun. */
export function isStopping(): boolean {
  return stopping !== undefined;
}

/**
 * Stops every service registered, all at once and each even when another fails; resolves once each has been tried.
 * Called again, it returns the same promise.
 */
export function stopStarted(log: (msg: string) => void): Promise<void> {
  stopping ??= Promise.allSettled(
    stops.splice(0).map(({ name, stop }) =>
      Promise.resolve()
        .then(stop)
        .catch((err: unknown) => log(`could not stop ${name}: ${err instanceof Error ? err.message : String(err)}`)),
    ),
  ).then(() => undefined);
  return stopping;
}

/**
 * Stops what this run started on SIGINT, SIGTERM or SIGHUP, then exits with the signal's status. Installed at the
 * start of the command, before anything is started.
 */
export function stopOnSignals(log: (msg: string) => void): void {
  if (handled) return;
  handled = true;
  for (const signal of SIGNALS) {
    process.on(signal, () => {
      if (stopping !== undefined) return; // the same Ctrl-C, from the terminal and forwarded by npm: one stop
      log(`${signal}: stopping what this command started`);
      void stopStarted(log).finally(() => process.exit(SIGNAL_EXIT[signal]));
    });
  }
}

/** Stops what this run started (and waits for a stop already under way), then exits with `code`. */
export async function exitAfterStop(code: number, log: (msg: string) => void): Promise<never> {
  await stopStarted(log);
  process.exit(code);
}
