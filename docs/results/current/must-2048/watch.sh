#!/bin/bash
# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
# The watcher beside the runs that keep a watch.log: each second, per server of the run,
# row lock waits, threads running, the bound, the waiters and the history.
# logs, per server of a run: row lock waits, threads running, the bound and the waiters each second
RUN=$1; CLI=/work/main/build/release/client/mariadb; OUT=$2
while true; do
  for sock in $(ls $RUN/*/mysqld.sock 2>/dev/null); do
    [ -S $sock ] || continue
    v=$(timeout 5 $CLI -S $sock -uroot -N -e "select group_concat(concat(lower(replace(variable_name,'INNODB_','')),'=',variable_value) order by variable_name) from information_schema.global_status where variable_name in ('INNODB_ROW_LOCK_CURRENT_WAITS','THREADS_RUNNING','HANDLER_UPDATE','INNODB_PURGE_THROTTLE_CONCURRENCY','INNODB_PURGE_THROTTLE_WAITING','INNODB_HISTORY_LIST_LENGTH','INNODB_PURGE_THROTTLE_COMMIT_LIMIT')" 2>/dev/null)
    [ -n "$v" ] && echo "$(date +%T) $(basename $(dirname $sock)) $v" >> $OUT
  done
  sleep 1
done
