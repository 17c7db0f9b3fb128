# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Sample the server's purge state once a second while a workload runs."""

import re
import threading
import time

STATUS = ["Innodb_history_list_length", "Innodb_lsn_current",
          "Innodb_purge_dml_delay_current_usec", "Innodb_purge_dml_delayed_rows",
          "Innodb_purge_dml_delay_total_usec", "Innodb_purge_dml_wakeups",
          "Innodb_purge_commit_wakeups",
          "Innodb_purge_throttle_active", "Innodb_purge_throttle_error",
          "Innodb_purge_throttle_purge_rate", "Innodb_purge_throttle_commit_limit",
          "Innodb_purge_throttle_concurrency", "Innodb_purge_throttle_waiting",
          "Innodb_purge_dml_delayed_trx", "Innodb_purge_unparsed_trx",
          "Innodb_purge_rsegs_withheld", "Innodb_purge_drain_width"]
TRX_COUNTER_RE = re.compile(r"Trx id counter (\d+)")


def parse_trx_counter(innodb_status):
    m = TRX_COUNTER_RE.search(innodb_status)
    return int(m.group(1)) if m else None


def to_number(v):
    if v is None:
        return None
    if v in ("ON", "OFF"):
        return 1 if v == "ON" else 0
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return None


def sample_once(server):
    """One sample: the status above (None where the server lacks it) and
    the trx id counter."""
    rows = server.status(STATUS)
    s = {name.lower(): to_number(rows.get(name.lower())) for name in STATUS}
    status = server.query("SHOW ENGINE INNODB STATUS")
    s["trx_id_counter"] = parse_trx_counter("\n".join("\t".join(r) for r in status))
    return s


class Sampler(threading.Thread):
    """Samples every interval seconds until stopped; on_sample gets each."""

    def __init__(self, server, interval=1.0, on_sample=None):
        super().__init__(daemon=True)
        self.server = server
        self.interval = interval
        self.samples = []
        self.on_sample = on_sample
        self._stop_event = threading.Event()
        self.t0 = time.time()
        self.errors = 0

    def run(self):
        nxt = time.time()
        while not self._stop_event.is_set():
            try:
                s = sample_once(self.server)
                s["t"] = round(time.time() - self.t0, 3)
                self.samples.append(s)
                if self.on_sample:
                    self.on_sample(s)
            except Exception:  # the server may be shutting down
                self.errors += 1
            nxt += self.interval
            self._stop_event.wait(max(0.0, nxt - time.time()))

    def stop(self):
        self._stop_event.set()
        self.join(timeout=10)
        return self.samples
