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
