/*****************************************************************************

Copyright (c) 2026, purgelab developers.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License as published by the Free Software
Foundation; version 2 of the License.

This program is distributed in the hope that it will be useful, but WITHOUT
ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS
FOR A PARTICULAR PURPOSE. See the GNU General Public License for more details.

You should have received a copy of the GNU General Public License along with
this program; if not, write to the Free Software Foundation, Inc.,
51 Franklin Street, Fifth Floor, Boston, MA 02110-1335 USA

*****************************************************************************/

/**************************************************//**
@file include/srv0purgelab_adaptive_mon.h
The counters of the adaptive throttle in the purge_throttle module of
INNODB_METRICS (srv0purgelab_mon.h).  Only macros and a declaration, so that
srv0mon.h can include it before monitor_id_t: PURGE_ADAPTIVE_MONITORS(X)
calls X(id, name, type, description) once per counter, and srv0mon.h and
srv0mon.cc expand it after the module's other counters; the values come from
purge_throttle_adaptive_monitor_value() (srv0purgelab_adaptive.cc).
*******************************************************/

#ifndef srv0purgelab_adaptive_mon_h
#define srv0purgelab_adaptive_mon_h

#include "srv0purgelab_mon.h"

#define PURGE_ADAPTIVE_MONITORS(X)					\
  X(MONITOR_PURGE_DML_DELAYED_TRX, "purge_dml_delayed_trx",		\
    PURGE_THROTTLE_MON_COUNT,						\
    "Connections that the adaptive throttle held at its gate")		\
  X(MONITOR_PURGE_COMMIT_WAKEUPS, "purge_commit_wakeups",		\
    PURGE_THROTTLE_MON_COUNT,						\
    "Times a commit woke the idle purge coordinator near the target")	\
  X(MONITOR_PURGE_THROTTLE_TICKETS, "purge_throttle_tickets",		\
    PURGE_THROTTLE_MON_NOW,						\
    "Connections let in by the adaptive throttle whose transaction has"	\
    " not ended")							\
  X(MONITOR_PURGE_THROTTLE_ERROR, "purge_throttle_error",		\
    PURGE_THROTTLE_MON_NOW,						\
    "The adaptive throttle's history minus its target, at its last"	\
    " update")								\
  X(MONITOR_PURGE_THROTTLE_WAIT_POINTS, "purge_throttle_wait_points",	\
    PURGE_THROTTLE_MON_COUNT,						\
    "Times connections reached InnoDB's wait point, which the server"	\
    " calls only while the adaptive throttle has a target")		\
  X(MONITOR_PURGE_THROTTLE_UPDATES_IN_BATCH,				\
    "purge_throttle_updates_in_batch", PURGE_THROTTLE_MON_COUNT,	\
    "Evaluations of the adaptive throttle's law within a purge batch"	\
    " that ran for 100 ms since the last one")

/** @return the value of a counter of PURGE_ADAPTIVE_MONITORS
@param id  one of its ids (a monitor_id_t) */
int64_t purge_throttle_adaptive_monitor_value(unsigned id) noexcept;

#endif
