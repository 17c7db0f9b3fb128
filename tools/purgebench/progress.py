# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Progress of one run: a live line (rich) in a terminal; in a log, one
plain line every `every` seconds of the run, so that a log reads line by
line."""

import sys


class Progress:
    def __init__(self, title, seconds, stream=None, every=10, live=None):
        self.title = title
        self.seconds = seconds
        self.stream = stream or sys.stdout
        self.every = every
        self.next_line = every
        self.live = self.stream.isatty() if live is None else live
        self.bar = None
        if self.live:
            try:
                from rich.console import Console
                from rich.progress import BarColumn, Progress as Bar, TextColumn
            except ImportError:
                self.live = False
            else:
                self.bar = Bar(TextColumn("{task.description}"), BarColumn(),
                               TextColumn("{task.completed:.0f}/{task.total:.0f}s "
                                          "{task.fields[status]}"),
                               console=Console(file=self.stream, force_terminal=True),
                               transient=True)
                self.task = self.bar.add_task(title, total=seconds, status="")
                self.bar.start()

    @staticmethod
    def status(tps, history, lat_p95):
        h = "-" if history is None else f"{history:,}"
        return f"tps {tps:,.0f} p95 {lat_p95:g} ms history {h}"

    def update(self, t, tps, history, lat_p95):
        """A report interval at t seconds into the run."""
        text = self.status(tps, history, lat_p95)
        if self.live:
            self.bar.update(self.task, completed=min(t, self.seconds), status=text)
        elif t >= self.next_line:
            self.next_line = (t // self.every + 1) * self.every
            print(f"  {self.title}: {t:.0f}/{self.seconds}s {text}", file=self.stream,
                  flush=True)

    def close(self):
        if self.bar:
            self.bar.stop()
            self.bar = None


class Ticker:
    """Progress of a step that runs longer than a few seconds without a
    load's report intervals (loading data, a slow shutdown, waiting for
    purge): in a terminal a live line (rich: spinner, elapsed time, the
    step's status), in a log one plain line every `every` seconds, through
    `say` (Bench.log: stdout and progress.log). status: a function that
    returns what the step has done so far (a string, or None), asked at
    each line. Use as a context manager; the step's end is one line, with
    its duration, when it took a line's interval or more."""

    def __init__(self, title, say=None, status=None, every=10, stream=None, live=None):
        import threading
        import time
        self.title = title
        self.say = say or (lambda msg: print(msg, flush=True))
        self.status = status
        self.every = every
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self.clock = time.monotonic
        self.t0 = self.clock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._tick, daemon=True)
        self.bar = None
        self.lines = 0
        if self.live:
            try:
                from rich.console import Console
                from rich.progress import (Progress as Bar, SpinnerColumn, TextColumn,
                                           TimeElapsedColumn)
            except ImportError:
                self.live = False
            else:
                self.bar = Bar(SpinnerColumn(), TextColumn("{task.description}"),
                               TimeElapsedColumn(), TextColumn("{task.fields[status]}"),
                               console=Console(file=self.stream, force_terminal=True),
                               transient=True)
                self.task = self.bar.add_task(title, total=None, status="")

    def elapsed(self):
        return self.clock() - self.t0

    def _status(self):
        try:
            s = self.status() if self.status else None
        except Exception:       # a status is a nicety: never stop the step for it
            s = None
        return s or ""

    def _tick(self):
        wait = 1.0 if self.live else self.every
        while not self.done.wait(wait):
            s = self._status()
            if self.live:
                self.bar.update(self.task, status=s)
            else:
                self.lines += 1
                self.say(f"  {self.title}: {self.elapsed():.0f} s" + (f", {s}" if s else ""))

    def __enter__(self):
        self.t0 = self.clock()
        if self.bar:
            self.bar.start()
        self.thread.start()
        return self

    def __exit__(self, kind, value, tb):
        self.done.set()
        self.thread.join(timeout=5)
        if self.bar:
            self.bar.stop()
            self.bar = None
        took = self.elapsed()
        if took >= self.every:
            s = self._status()
            self.say(f"  {self.title}: {'done' if kind is None else 'stopped'} after "
                     f"{took:.0f} s" + (f", {s}" if s else ""))
        return False
