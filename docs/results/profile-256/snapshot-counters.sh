#!/bin/bash
# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
#
# Snapshots InnoDB's index page and purge counters at 10 s and 50 s of the
# unthrottled and adaptive@10000 runs of a 60 s backlog-vs-lag benchmark,
# by following its progress output. Used for counters.txt:
#   BUILD/run backlog-vs-lag --threads 256 --time 60 --lags 10000 \
#     --arms adaptive --out /work/results/counters-256 > run.log 2>&1 &
#   docs/results/profile-256/snapshot-counters.sh run.log counters.txt \
#     /work/results/counters-256/server/mysqld.sock
# The profiles (perf-summary.md) came from the same command with
# --out /work/results/perf-256 and, at 20 s of each arm,
#   perf record -g -F 199 -p $(pgrep -x mariadbd) -- sleep 25
set -eu
log=$1 out=$2 sock=$3
client=${CLIENT:-$(dirname "$0")/../../../build/release/client/mariadb}
sql() { "$client" -uroot -S "$sock" -N -e "$1"; }
query="select name, count from information_schema.innodb_metrics
  where name in ('index_page_splits', 'index_page_merge_attempts',
    'index_page_merge_successful', 'index_page_discards',
    'index_page_reorg_successful', 'purge_del_mark_records',
    'purge_upd_exist_or_extern_records', 'trx_rw_commits')
  union all select variable_name, variable_value
  from information_schema.global_status
  where variable_name in ('COM_COMMIT', 'INNODB_ROWS_INSERTED',
    'INNODB_ROWS_DELETED', 'INNODB_ROWS_UPDATED')"
wait_for() { until grep -q "$1" "$log"; do sleep 0.5; done; }
for arm in "unthrottled #1" "adaptive@10000 #1"; do
  wait_for "$arm: 3/60s"
  # the index module's counters are off by default; figures are 10..50 s differences
  sql "set global innodb_monitor_enable='index_page%';
       set global innodb_monitor_enable='purge%';
       set global innodb_monitor_enable='trx_rw_commits'"
  for t in 10 50; do
    wait_for "$arm: $t/60s"
    echo "## $arm at $t" >> "$out"
    sql "$query" >> "$out"
  done
done
