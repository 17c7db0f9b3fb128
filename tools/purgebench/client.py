# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""A benchmark client (sysbench, go-tpc) running in the background, its
output parsed line by line as it comes."""

import subprocess


class ClientRun:
    """Subclasses say what an interval line is (interval()), what the whole
    output sums up to (summarize()) and which error a failed run raises
    (error)."""
    name = "client"
    error = RuntimeError

    def __init__(self, cmd, on_interval=None, on_exit=None):
        self.cmd = cmd
        self.on_exit = on_exit
        self.on_interval = on_interval
        self.intervals = []
        self.text = []
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, bufsize=1)

    def interval(self, line):
        """A report interval of one output line ({'t', 'tps', 'lat_ms', ...}),
        or None."""
        raise NotImplementedError

    def summarize(self, text):
        """The summary of a run that exited with 0: {'transactions_per_s',
        'queries_per_s', 'errors', ...}."""
        raise NotImplementedError

    def pump(self):
        """Read all output until the client exits; on_exit runs then, before
        anything is parsed. Returns summarize()."""
        for line in self.proc.stdout:
            self.text.append(line)
            iv = self.interval(line)
            if iv:
                self.intervals.append(iv)
                if self.on_interval:
                    self.on_interval(iv)
        rc = self.proc.wait()
        if self.on_exit:
            self.on_exit()
        text = "".join(self.text)
        if rc != 0:
            raise self.error(f"{self.name} exited with {rc}:\n{text[-2000:]}")
        return self.summarize(text)

    def extra(self):
        """What a run of this client adds to its result."""
        return {}

    def stop(self, timeout=15):
        """Stop the client if it still runs: SIGTERM, then SIGKILL."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def run_lines(cmd, on_line=None):
    """Run cmd to its end, its output (stdout and stderr) read line by line
    as it comes, each given to on_line (a step's progress). Returns
    (exit status, the whole output)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, bufsize=1)
    lines = []
    try:
        with proc.stdout:
            for line in proc.stdout:
                lines.append(line)
                if on_line:
                    on_line(line)
    except BaseException:       # Ctrl-C: the client does not outlive the harness
        proc.kill()
        proc.wait()
        raise
    return proc.wait(), "".join(lines)


class LastLine:
    """A step's status: the last non-empty line its client printed."""

    def __init__(self):
        self.line = None

    def __call__(self, line):
        if line.strip():
            self.line = line.strip()[:160]

    def status(self):
        return self.line
