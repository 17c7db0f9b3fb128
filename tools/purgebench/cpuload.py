# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Competing CPU load (--cpu-load N): N processes that spin while a run's
load runs, as other work on a busy host.  They take CPU from purge as from
DML; on this 2-core machine two of them let 256 writers outrun purge far
enough to reach the 100k and 500k lags, which the workload alone cannot."""

import contextlib
import subprocess
import sys

SPIN = "while True: pass"


@contextlib.contextmanager
def spinning(n):
    """Run n spinning processes for the duration of the with block; they
    are killed when it ends, however it ends."""
    procs = []
    try:
        for _ in range(n):
            procs.append(subprocess.Popen([sys.executable, "-c", SPIN],
                                          stdin=subprocess.DEVNULL))
        yield procs
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()
