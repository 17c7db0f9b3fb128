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
@file include/srv0purgelab_drain_mon.h
The counters of undo log truncation and the rollback segment drain in the
purge_throttle module of INNODB_METRICS (srv0purgelab_mon.h).  Only macros
and a declaration, so that srv0mon.h can include it before monitor_id_t:
PURGE_DRAIN_MONITORS(X) calls X(id, name, type, description) once per
counter, and srv0mon.h and srv0mon.cc expand it after the module's other
counters; the values come from purge_drain_monitor_value()
(srv0purgelab_drain.cc).
*******************************************************/

#ifndef srv0purgelab_drain_mon_h
#define srv0purgelab_drain_mon_h

#include "srv0purgelab_mon.h"

#define PURGE_DRAIN_MONITORS(X)					\
  X(MONITOR_PURGE_TRUNCATION_PASSES, "purge_truncation_passes",		\
    PURGE_THROTTLE_MON_COUNT,						\
    "Passes of undo log truncation over the rollback segments")	\
  X(MONITOR_PURGE_TRUNCATION_USEC, "purge_truncation_usec",		\
    PURGE_THROTTLE_MON_COUNT,						\
    "Microseconds that the passes of undo log truncation took, in total") \
  X(MONITOR_PURGE_TRUNCATION_BUSY_RSEGS, "purge_truncation_busy_rsegs",	\
    PURGE_THROTTLE_MON_NOW,						\
    "Rollback segments whose purged history the last truncation pass"	\
    " could not free")							\
  X(MONITOR_PURGE_TRUNCATION_REFERENCED_RSEGS,				\
    "purge_truncation_referenced_rsegs", PURGE_THROTTLE_MON_NOW,	\
    "Rollback segments that transactions referenced during the last"	\
    " truncation pass")							\
  X(MONITOR_PURGE_RSEGS_WITHHELD, "purge_rsegs_withheld",		\
    PURGE_THROTTLE_MON_NOW,						\
    "Rollback segments withheld from new transactions for truncation")	\
  X(MONITOR_PURGE_DRAIN_WIDTH, "purge_drain_width",			\
    PURGE_THROTTLE_MON_NOW,						\
    "Rollback segments that truncation may withhold at once now")	\
  X(MONITOR_PURGE_DRAIN_RELEASED, "purge_drain_released",		\
    PURGE_THROTTLE_MON_COUNT,						\
    "Withheld rollback segments given back after they drained")	\
  X(MONITOR_PURGE_DRAIN_WITHHELD_USEC, "purge_drain_withheld_usec",	\
    PURGE_THROTTLE_MON_COUNT,						\
    "Microseconds that the segments given back were withheld, in"	\
    " total")

/** @return the value of a counter of PURGE_DRAIN_MONITORS
@param id  one of its ids (a monitor_id_t) */
int64_t purge_drain_monitor_value(unsigned id) noexcept;

#endif
