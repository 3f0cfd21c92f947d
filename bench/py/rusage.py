"""Runs a command with its standard output sent to a file, and reports what it cost.

    python3 rusage.py <stdout file> -- <command...>

Prints one JSON line: seconds (wall clock of the command), cpu (user + system CPU seconds of the command and its
children) and peakRssKb (the largest ru_maxrss among them). Exits with the command's status.
"""
import json
import resource
import subprocess
import sys
import time


def main() -> None:
    out_file, cmd = sys.argv[1], sys.argv[sys.argv.index("--") + 1 :]
    t0 = time.perf_counter()
    with open(out_file, "wb") as out:
        status = subprocess.run(cmd, stdout=out).returncode
    seconds = time.perf_counter() - t0
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"seconds": seconds, "cpu": r.ru_utime + r.ru_stime, "peakRssKb": r.ru_maxrss, "status": status}))
    sys.exit(status)


main()
