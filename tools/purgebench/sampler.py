# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Sample the server's purge state once a second while a workload runs,
through one persistent connection (PyMySQL), reading only status
variables: a sample costs one round trip, not a client process."""

import threading
import time

STATUS = ["Innodb_history_list_length", "Innodb_lsn_current", "Innodb_max_trx_id",
          "Innodb_purge_dml_delay_current_usec", "Innodb_purge_dml_delayed_rows",
          "Innodb_purge_dml_delay_total_usec", "Innodb_purge_dml_wakeups",
          "Innodb_purge_commit_wakeups",
          "Innodb_purge_throttle_active", "Innodb_purge_throttle_error",
          "Innodb_purge_throttle_purge_rate", "Innodb_purge_throttle_commit_limit",
          "Innodb_purge_throttle_concurrency", "Innodb_purge_throttle_waiting",
          "Innodb_purge_dml_delayed_trx", "Innodb_purge_unparsed_trx",
          "Innodb_purge_view_blocked_trx",
          "Innodb_purge_rsegs_withheld", "Innodb_purge_drain_width",
          "Innodb_purge_truncation_passes", "Innodb_purge_truncation_usec",
          "Innodb_purge_truncation_busy_rsegs", "Innodb_purge_truncation_referenced_rsegs",
          "Innodb_purge_drain_released", "Innodb_purge_drain_withheld_usec"]
QUERY = ("SHOW GLOBAL STATUS WHERE Variable_name IN ("
         + ", ".join(f"'{n}'" for n in STATUS) + ")")
# The fork's throttle internals are INNODB_METRICS counters (module
# purge_throttle, and the purge module's purge_dml_delay_usec); a sample
# keeps them under the status variables' names that they had before, so that
# older runs and newer ones read alike.  Older builds have them as status
# variables, which STATUS still asks for.
METRICS = {"purge_dml_delay_usec": "Innodb_purge_dml_delay_current_usec"}
METRICS_QUERY = ("SELECT NAME, COUNT FROM information_schema.INNODB_METRICS "
                 "WHERE SUBSYSTEM='purge_throttle' OR NAME='purge_dml_delay_usec'")


def metric_rows(rows):
    """INNODB_METRICS (NAME, COUNT) rows -> (status name, value) rows."""
    return [(METRICS.get(str(n).lower(), "Innodb_" + str(n).lower()), v)
            for n, v in rows]


class SamplerError(Exception):
    pass


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


def from_rows(rows):
    """SHOW GLOBAL STATUS rows -> a sample: every name of STATUS in lower
    case (None where the server lacks it); the trx id counter, which the
    redo bytes per transaction need, as trx_id_counter."""
    got = {}
    for k, v in rows:  # a status variable wins over a metric of its name
        got.setdefault(str(k).lower(), v)
    s = {name.lower(): to_number(got.get(name.lower())) for name in STATUS}
    s.update((k, to_number(v)) for k, v in got.items() if k not in s)
    s["trx_id_counter"] = s.pop("innodb_max_trx_id")
    return s


def connect(socket):
    """One connection to the server: over its socket as root, or as a
    server.Conn says (attach mode)."""
    try:
        import pymysql
    except ImportError:
        raise SamplerError("the sampler needs PyMySQL: run BUILD/setup "
                           "(or apt-get install python3-pymysql)")
    kw = (socket.pymysql_kwargs() if hasattr(socket, "pymysql_kwargs")
          else dict(unix_socket=socket, user="root"))
    try:
        return pymysql.connect(autocommit=True, connect_timeout=10, read_timeout=30, **kw)
    except pymysql.MySQLError as e:
        where = socket.where() if hasattr(socket, "where") else socket
        raise SamplerError(f"sampler cannot connect to {where}: {e}")


class Sampler(threading.Thread):
    """Samples every interval seconds until stopped; on_sample gets each.
    cpu_s is the CPU time its own thread used (its cost beside the load)."""

    def __init__(self, socket, interval=1.0, on_sample=None):
        super().__init__(daemon=True)
        self.conn = connect(socket)
        self.interval = interval
        self.samples = []
        self.on_sample = on_sample
        self._stop_event = threading.Event()
        self.t0 = time.time()
        self.errors = 0
        self.cpu_s = 0.0
        self.final = None
        self.metrics = True

    def sample(self):
        """One sample, now."""
        with self.conn.cursor() as cur:
            cur.execute(QUERY)
            rows = list(cur.fetchall())
            if self.metrics:
                try:
                    cur.execute(METRICS_QUERY)
                    rows += metric_rows(cur.fetchall())
                except Exception:  # a server without INNODB_METRICS
                    self.metrics = False
            return from_rows(rows)

    def run(self):
        cpu0 = time.thread_time()
        nxt = time.time()
        while not self._stop_event.is_set():
            try:
                s = self.sample()
                now = time.time()
                s["t"] = round(now - self.t0, 3)
                # the wall clock too, to line a sample up with PMM or Grafana
                s["epoch"] = round(now, 3)
                self.samples.append(s)
                if self.on_sample:
                    self.on_sample(s)
            except Exception:  # the server may be shutting down
                self.errors += 1
            nxt += self.interval
            self._stop_event.wait(max(0.0, nxt - time.time()))
        self.cpu_s = time.thread_time() - cpu0

    def stop(self, final=False):
        """Stop sampling (again is harmless); the samples taken. final: take
        one more sample on the way, as self.final (not among them), e.g. the
        LSN at the end of a run shorter than the interval."""
        self._stop_event.set()
        if self.is_alive():
            self.join(timeout=10)
        if final and self.conn.open:
            try:
                self.final = self.sample()
            except Exception:
                self.errors += 1
        if self.conn.open:
            try:
                self.conn.close()
            except Exception:
                pass
        return self.samples
