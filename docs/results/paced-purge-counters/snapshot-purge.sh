#!/bin/bash
# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
#
# Snapshots InnoDB's purge counters, the server's CPU time and the history
# at 10 s and 50 s of one 60 s purgebench run, by following its progress
# output: snapshot-purge.sh RUN.LOG OUT.TXT SOCKET 'ARM #1' (the arm as the
# progress line names it, e.g. 'rate@3600 #1' or 'unthrottled #1').
# Used for counters.txt (commands in commands.txt).
set -eu
log=$1 out=$2 sock=$3 arm=$4
client=${CLIENT:-$(dirname "$0")/../../../build/release/client/mariadb}
sql() { "$client" -uroot -S "$sock" -N -e "$1"; }
query="select name, count from information_schema.innodb_metrics
  where name in ('purge_invoked', 'purge_undo_log_pages',
    'purge_del_mark_records', 'purge_upd_exist_or_extern_records',
    'trx_rw_commits')
  union all select variable_name, variable_value
  from information_schema.global_status
  where variable_name in ('INNODB_HISTORY_LIST_LENGTH',
    'INNODB_PURGE_UNPARSED_TRX', 'INNODB_LOG_WRITES', 'INNODB_OS_LOG_FSYNCS',
    'INNODB_DATA_FSYNCS')"
wait_for() { until tr '\r' '\n' < "$log" | grep -q "$1"; do sleep 0.5; done; }
wait_for "$arm: 3/60s"
sql "set global innodb_monitor_enable='purge%';
     set global innodb_monitor_enable='trx_rw_commits'"
for t in 10 50; do
  wait_for "$arm: $t/60s"
  pid=$(pgrep -x mariadbd)
  {
    echo "## $arm at $t"
    sql "$query"
    # utime + stime of the whole server, in clock ticks
    echo "server_cpu_ticks	$(awk '{print $14 + $15}' /proc/$pid/stat)"
    echo "clock_ticks_per_s	$(getconf CLK_TCK)"
    # context switches of all the server's threads
    cat /proc/$pid/task/*/status | awk '/^voluntary_ctxt_switches/ {v+= $2}
      /^nonvoluntary_ctxt_switches/ {n+= $2}
      END {print "server_voluntary_ctxt_switches\t" v;
           print "server_nonvoluntary_ctxt_switches\t" n}'
  } >> "$out"
done
