# Copyright (c) 2026, purgelab developers.
#
# This program is free software; you can redistribute it and/or modify it
# under the terms of the GNU General Public License as published by the Free
# Software Foundation; version 2 of the License.
#
# This program is distributed in the hope that it will be useful, but WITHOUT
# ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS
# FOR A PARTICULAR PURPOSE. See the GNU General Public License for more details.
#
# You should have received a copy of the GNU General Public License along with
# this program; if not, write to the Free Software Foundation, Inc.,
# 51 Franklin St, Fifth Floor, Boston, MA 02110-1335 USA

"""The scenarios of purgebench: their names, their scale (the small default
and --full), the settings of the servers it starts and the variables it
records or sets."""


from . import insertbench, snapshot
# names that plan.py owns (it sits under snapshot and report, which this
# module imports), kept importable from here
from .plan import DEFAULT_SWITCH, LABEL_RE, STEP_SCENARIOS  # noqa: F401


SCENARIOS = ("history-growth", "backlog-vs-lag", "redo-per-trx", "purge-capacity",
             "thread-sweep", "tpcc", "ch", "insert-benchmark", "snapshot-release")
# scenarios whose client (go-tpc) connects over TCP: the server then listens
# on 127.0.0.1 only, on a free port
TCP_SCENARIOS = ("tpcc", "ch")
DEFAULT_SCENARIOS = ("history-growth", "backlog-vs-lag")

# Scale: (small default, --full = seed scale)
SCALE = {
    "history-growth": dict(test="oltp_read_write", tables=(4, 4), rows=(20000, 100000),
                           threads=(4, 4), time=(40, 300)),
    # 256 writers outrun purge here: the unthrottled history passes the
    # 10k target, so that the throttles have something to do
    "backlog-vs-lag": dict(test="oltp_write_only", tables=(5, 5), rows=(5000, 5000),
                           threads=(256, 256), time=(60, 120),
                           lags=((10000,), (10000, 100000, 500000))),
    "redo-per-trx": dict(test="oltp_update_non_index", tables=(1, 1), rows=(10000, 1000000),
                         threads=((1, 4, 16), (1, 2, 4, 8, 16, 32, 64)), time=(10, 60)),
    "purge-capacity": dict(test="oltp_write_only", tables=(5, 5), rows=(5000, 5000),
                           threads=(16, 64), time=(20, 60),
                           rates=((500, 1000, 2000, 4000, 8000),
                                  (500, 1000, 2000, 4000, 8000, 16000))),
    # MDEV-16168: update_no_index over 1..4096 threads, two builds or settings
    "thread-sweep": dict(test="oltp_update_non_index", tables=(1, 1), rows=(100000, 1000000),
                         threads=((1, 4, 16, 64, 256, 1024), (1, 4, 16, 64, 256, 1024, 4096)),
                         time=(20, 60)),
    # the Insert Benchmark's steps on one table (insertbench.plan_steps():
    # rows = the table's, l.i1 and l.i2 insert 40% and 10% of it; time = each
    # query step's; threads = writers, as many readers); unthrottled and each
    # throttle at these targets
    "insert-benchmark": dict(test=insertbench.LUA, tables=(1, 1),
                             rows=tuple(insertbench.SIZES[f]["table_rows"] for f in (False, True)),
                             threads=(insertbench.DEFAULT_WRITERS,) * 2,
                             time=tuple(insertbench.SIZES[f]["query_seconds"]
                                        for f in (False, True)),
                             lags=((10000,), (10000,))),
}
SCALE.update({
    # MDEV-16260: a read view held for `hold` s under backlog-vs-lag's load,
    # after `time` s of load, then released; the load goes on for 30 s and
    # `time` s more (the continue form), or stops at the release (stop)
    snapshot.SCENARIO: dict(test="oltp_write_only", tables=(5, 5), rows=(5000, 5000),
                            threads=(256, 256), time=(20, 60), hold=(30, 300),
                            lags=((10000,), (10000,))),
    # TPC-C through go-tpc: the data is loaded once per server and restored
    # for every run; the seed's 500k lag needs --full's hours (not reachable
    # here, docs/RESULTS.md)
    "tpcc": dict(test="go-tpc tpcc", warehouses=(2, 10), threads=(32, 64), time=(90, 1800),
                 lags=((10000,), (500000,))),
    # CH-benCHmark: the same writers plus analytical queries (--ac-threads)
    "ch": dict(test="go-tpc ch", warehouses=(2, 10), threads=(32, 64), time=(90, 1800),
               ac_threads=(1, 2), lags=((10000,), (500000,))),
})

# the fork's count of committed transactions that purge has not parsed yet
UNPARSED = "innodb_purge_unparsed_trx"

BASE_CNF = {
    "innodb_buffer_pool_size": "2G",
    "innodb_log_file_size": "1G",
    "innodb_flush_log_at_trx_commit": "1",
    "innodb_flush_method": "O_DIRECT",
    "innodb_purge_threads": "4",
    "innodb_doublewrite": "ON",
}
RECORDED_VARS = ["version", "version_comment", "innodb_buffer_pool_size",
                 "innodb_log_file_size", "innodb_flush_log_at_trx_commit",
                 "innodb_flush_method", "innodb_purge_threads", "innodb_purge_batch_size",
                 "innodb_doublewrite", "max_connections"]


# variables that arms set: probed once per server at its first start
ARM_VARS = ("innodb_max_purge_lag", "innodb_max_purge_lag_delay", "innodb_purge_throttle",
            "innodb_purge_coupled_throttle", "innodb_undo_log_compact_init",
            "innodb_purge_drain_rsegs")
# what tools/install-stock-server leaves next to the usr/ it unpacked
STOCK_MARKER = "purgelab-stock.txt"


def ib_plan(args):
    """insert-benchmark's steps (insertbench.plan_steps()) for the options:
    --rows the table's rows, --time each query step's seconds, --threads
    the writers (and as many readers), --full the larger sizes. ValueError
    for a plan whose writers would run out of rows to delete."""
    return insertbench.plan_steps(args.full, writers=args.threads or insertbench.DEFAULT_WRITERS,
                                  table_rows=args.rows, query_seconds=args.time)
