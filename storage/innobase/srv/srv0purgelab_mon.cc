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
  case MONITOR_PURGE_DML_DELAY_TOTAL_USEC: return int64_t(st.delayed_usec);
  case MONITOR_PURGE_DML_WAKEUPS: return int64_t(st.dml_wakeups);
  case MONITOR_PURGE_COORDINATOR_POLLS: return int64_t(st.coordinator_polls);
  default:
    ut_ad("not a purge_throttle counter" == 0);
    return 0;
  }
}
