#!/bin/bash
# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
# The watcher beside the hold-4096-again run: logs row updates a second and
# takes the stacks (gdb) after 4 s under 100 a second once 30,000 were done.
# watch for a stall: dump stacks once
RUN=$1; CLI=/work/main/build/release/client/mariadb
prev=0; low=0; n=0
while true; do
  sock=$(ls $RUN/*/mysqld.sock 2>/dev/null | head -1)
  if [ -n "$sock" ] && [ -S $sock ]; then
    v=$(timeout 5 $CLI -S $sock -uroot -N -e "select variable_value from information_schema.global_status where variable_name in ('HANDLER_UPDATE','THREADS_CONNECTED') order by variable_name" 2>/dev/null | tr '\n' ' ')
    c=$(echo $v | cut -d' ' -f1); t=$(echo $v | cut -d' ' -f2)
    if [ -z "$c" ]; then low=$((low+1)); else
      d=$((c-prev)); prev=$c
      if [ "${t:-0}" -gt 1000 ] && [ "$c" -gt 30000 ] && [ $d -lt 100 ] && [ $d -ge 0 ]; then low=$((low+1)); else low=0; fi
    fi
    echo "$(date +%T) commits=$c d=$d threads=$t low=$low" >> /work/logs/watch.log
    if [ $low -ge 4 ] && [ $n -lt 3 ]; then
      pid=$(cat $(dirname $sock)/mysqld.pid)
      n=$((n+1))
      gdb -p $pid -batch -ex "set pagination off" -ex "thread apply all bt 12" > /work/logs/stall-$n.txt 2>&1
      echo "dumped $n" >> /work/logs/watch.log
      low=0
    fi
  fi
  sleep 1
done
