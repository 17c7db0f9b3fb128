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
@file include/srv0purgelab_mon.h
The purge_throttle module of INNODB_METRICS: the purge throttle's internal
counters, which an operator rarely reads (SHOW STATUS keeps what one does).
Only macros, so that srv0mon.h can include it before monitor_id_t.  A
header that adds counters to the module lists them in the same way, and
srv0mon.h and srv0mon.cc expand its list after this one.

PURGE_THROTTLE_MONITORS(X) calls X(id, name, type, description) once per
counter: srv0mon.h lists the ids in monitor_id_t after
MONITOR_MODULE_PURGE_THROTTLE, srv0mon.cc their rows in innodb_counter_info[]
and their values, from purge_throttle_monitor_value().  All are existing
counters, on from startup.
*******************************************************/

#ifndef srv0purgelab_mon_h
#define srv0purgelab_mon_h

#include <cstdint>

/** a counter that only grows */
#define PURGE_THROTTLE_MON_COUNT (MONITOR_EXISTING | MONITOR_DEFAULT_ON)
/** a value now */
#define PURGE_THROTTLE_MON_NOW (MONITOR_EXISTING | MONITOR_DEFAULT_ON	\
				| MONITOR_DISPLAY_CURRENT)

#define PURGE_THROTTLE_MONITORS(X)					\
  X(MONITOR_PURGE_DML_DELAYED_ROWS, "purge_dml_delayed_rows",		\
    PURGE_THROTTLE_MON_COUNT,						\
    "Rows of DML that the per-row delay held")			\
  X(MONITOR_PURGE_DML_DELAY_TOTAL_USEC, "purge_dml_delay_total_usec",	\
    PURGE_THROTTLE_MON_COUNT,						\
    "Microseconds that DML waited for the purge throttle, in total")		\
  X(MONITOR_PURGE_DML_WAKEUPS, "purge_dml_wakeups",			\
    PURGE_THROTTLE_MON_COUNT,						\
    "Times a delayed connection woke the idle purge coordinator")	\
  X(MONITOR_PURGE_COORDINATOR_POLLS, "purge_coordinator_polls",		\
    PURGE_THROTTLE_MON_COUNT,						\
    "Times the purge coordinator looked again after a batch that found"	\
    " nothing, because DML is throttled")

#define PURGE_THROTTLE_MONITOR_ID(id, name, type, desc) id,
#define PURGE_THROTTLE_MONITOR_INFO(id, name, type, desc)		\
  {name, "purge_throttle", desc, static_cast<monitor_type_t>(type),	\
   MONITOR_DEFAULT_START, id},
#define PURGE_THROTTLE_MONITOR_CASE(id, name, type, desc) case id:

/** @return the value of a counter of the purge_throttle module
@param id  one of the ids of PURGE_THROTTLE_MONITORS (a monitor_id_t) */
int64_t purge_throttle_monitor_value(unsigned id) noexcept;

#endif
