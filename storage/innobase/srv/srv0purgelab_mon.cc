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
@file srv/srv0purgelab_mon.cc
The values of the INNODB_METRICS module purge_throttle
(include/srv0purgelab_mon.h).
*******************************************************/

#include "srv0purgelab.h"
#include "srv0mon.h"

int64_t purge_throttle_monitor_value(unsigned id) noexcept
{
  const purge_throttle_stats_t &st= purge_throttle_stats;
  switch (static_cast<monitor_id_t>(id)) {
  case MONITOR_PURGE_DML_DELAYED_ROWS: return int64_t(st.delayed_rows);
  case MONITOR_PURGE_DML_DELAYED_TRX: return int64_t(st.delayed_trx);
  case MONITOR_PURGE_DML_DELAY_TOTAL_USEC: return int64_t(st.delayed_usec);
  case MONITOR_PURGE_DML_WAKEUPS: return int64_t(st.dml_wakeups);
  case MONITOR_PURGE_COMMIT_WAKEUPS: return int64_t(st.commit_wakeups);
  case MONITOR_PURGE_COORDINATOR_POLLS: return int64_t(st.coordinator_polls);
  case MONITOR_PURGE_THROTTLE_TICKETS: return purge_throttle_tickets();
  case MONITOR_PURGE_THROTTLE_ERROR: return st.error;
  case MONITOR_PURGE_TRUNCATION_PASSES: return int64_t(st.truncation_passes);
  case MONITOR_PURGE_TRUNCATION_USEC: return int64_t(st.truncation_usec);
  case MONITOR_PURGE_TRUNCATION_BUSY_RSEGS: return st.truncation_busy_rsegs;
  case MONITOR_PURGE_TRUNCATION_REFERENCED_RSEGS:
    return st.truncation_referenced_rsegs;
  case MONITOR_PURGE_RSEGS_WITHHELD: return purge_rsegs_withheld();
  case MONITOR_PURGE_DRAIN_WIDTH: return purge_drain_width();
  case MONITOR_PURGE_DRAIN_RELEASED: return int64_t(st.drain_released);
  case MONITOR_PURGE_DRAIN_WITHHELD_USEC:
    return int64_t(st.drain_withheld_usec);
  case MONITOR_PURGE_THROTTLE_WAIT_POINTS: return int64_t(st.wait_points);
  default:
    ut_ad("not a purge_throttle counter" == 0);
    return 0;
  }
}
