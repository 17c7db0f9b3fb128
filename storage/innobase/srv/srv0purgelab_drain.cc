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
@file srv/srv0purgelab_drain.cc
The drain of rollback segments (innodb_purge_drain_rsegs,
include/trx0drain.h) applied to undo log truncation: called for each
rollback segment that a truncation pass visits.
*******************************************************/

#include "srv0purgelab_drain.h"
#include "srv0purgelab_drain_mon.h"
#include "srv0purgelab_adaptive.h"
#include "srv0mon.h"
#include "trx0drain.h"
#include "trx0purge.h"
#include "trx0sys.h"

#include <algorithm>

static_assert(purge_throttle::rseg_drain::N_RSEGS == TRX_SYS_N_RSEGS, "");
static_assert(purge_throttle::adaptive_controller::DRAIN_WIDTH <=
              purge_throttle::rseg_drain::MAX_WIDTH, "");

uint innodb_purge_drain_rsegs;

/** The drain's state.  Only the thread that runs undo log truncation
(one at a time, purge_sys_t::iterator::free_history_rseg() with the
rollback segment's latch held) touches it. */
struct purge_rseg_drain_sys_t
{
  /** the rollback segments that the drain withholds */
  purge_throttle::rseg_drain drain;
  /** what truncation passes found (published in stats) */
  purge_throttle::truncation_tally tally;
  /** per rollback segment, the index of the first one in the same
  tablespace (rseg_drain::tablespace::key); see purge_rseg_spaces() */
  uint8_t rseg_space[TRX_SYS_N_RSEGS];
  /** per such index, the rollback segments of that tablespace */
  uint8_t space_rsegs[TRX_SYS_N_RSEGS];
  /** rseg_space and space_rsegs were filled in */
  bool rseg_spaces_known= false;
};

static purge_rseg_drain_sys_t purge_rseg_drain_sys;

/** What the drain and the truncation passes did, for INNODB_METRICS
(purge_drain_monitor_value()): written by the thread that runs undo log
truncation, read by anyone */
struct purge_rseg_drain_stats_t
{
  /** completed passes over the rollback segments, and the microseconds
  they took (purge_throttle::truncation_tally) */
  Atomic_relaxed<ulonglong> truncation_passes;
  Atomic_relaxed<ulonglong> truncation_usec;
  /** segments that the last pass found holding processed history that it
  could not free, and segments that transactions referenced then */
  Atomic_relaxed<uint> truncation_busy_rsegs;
  Atomic_relaxed<uint> truncation_referenced_rsegs;
  /** rollback segments that the drain withholds now */
  Atomic_relaxed<uint> rsegs_withheld;
  /** segments that the drain gave back after they drained, and the
  microseconds that they were withheld */
  Atomic_relaxed<ulonglong> drain_released;
  Atomic_relaxed<ulonglong> drain_withheld_usec;
};

static purge_rseg_drain_stats_t purge_rseg_drain_stats;

/** Group the rollback segments by tablespace, for the drain
(rseg_drain::tablespace).  A segment's tablespace does not change once
the server has started, so this runs once, at the first truncation pass,
in the one thread that runs the drain. */
static void purge_rseg_spaces() noexcept
{
  uint8_t *space= purge_rseg_drain_sys.rseg_space,
    *n= purge_rseg_drain_sys.space_rsegs;
  for (unsigned j= 0; j < TRX_SYS_N_RSEGS; j++)
  {
    n[j]= 0;
    space[j]= uint8_t(j);
    for (unsigned k= 0; k < j; k++)
      if (trx_sys.rseg_array[k].space == trx_sys.rseg_array[j].space)
      {
        space[j]= space[k];
        break;
      }
    n[space[j]]++;
  }
  purge_rseg_drain_sys.rseg_spaces_known= true;
}

bool purge_rseg_drain_visited(trx_rseg_t &rseg, bool busy) noexcept
{
  ut_ad(rseg.latch.have_wr());
  const unsigned i= unsigned(&rseg - trx_sys.rseg_array);
  purge_throttle::rseg_drain &rseg_drain= purge_rseg_drain_sys.drain;
  const bool ours= rseg_drain.is_withheld(i);
  const uint width= purge_drain_width();
  if (!purge_rseg_drain_sys.rseg_spaces_known)
    purge_rseg_spaces();
  const unsigned space= purge_rseg_drain_sys.rseg_space[i];
  ut_ad(trx_sys.rseg_array[space].space == rseg.space);
  /* No reference can be added while the segment is withheld
  (trx_rseg_t::acquire_if_available()), so a segment found unreferenced
  here stays so until it is given back. */
  const uint32_t ref= rseg.ref_load();
  const purge_throttle::rseg_drain::visit v{
    i, busy, ref >= trx_rseg_t::REF, (ref & trx_rseg_t::SKIP) != 0,
    rseg.space == purge_sys.truncate_undo_space.current};
  auto action= purge_throttle::rseg_drain::KEEP;
  if (width || ours)
  {
    action= rseg_drain.visited(v, width,
                               {space, purge_rseg_drain_sys.space_rsegs[space]});
    switch (action) {
    case purge_throttle::rseg_drain::KEEP:
      break;
    case purge_throttle::rseg_drain::WITHHOLD:
      rseg.set_skip_allocation();
      break;
    case purge_throttle::rseg_drain::RELEASE:
      rseg.clear_skip_allocation();
      break;
    }
    purge_rseg_drain_stats.rsegs_withheld= rseg_drain.withheld();
  }
  const bool withheld= rseg_drain.is_withheld(i);
  purge_throttle::truncation_tally &t= purge_rseg_drain_sys.tally;
  t.visited(v, action, withheld, my_interval_timer() / 1000);
  purge_rseg_drain_stats_t &st= purge_rseg_drain_stats;
  if (st.truncation_passes != t.passes())
  {
    st.truncation_passes= t.passes();
    st.truncation_usec= t.pass_usec();
    st.truncation_busy_rsegs= t.last_busy();
    st.truncation_referenced_rsegs= t.last_referenced();
  }
  if (action == purge_throttle::rseg_drain::RELEASE)
  {
    st.drain_released= t.released();
    st.drain_withheld_usec= t.withheld_usec();
  }
  return ours || withheld;
}

uint purge_drain_width() noexcept
{
  return std::max<uint>(innodb_purge_drain_rsegs,
                        purge_throttle_adaptive_drain_width());
}

int64_t purge_drain_monitor_value(unsigned id) noexcept
{
  const purge_rseg_drain_stats_t &st= purge_rseg_drain_stats;
  switch (static_cast<monitor_id_t>(id)) {
  case MONITOR_PURGE_TRUNCATION_PASSES: return int64_t(st.truncation_passes);
  case MONITOR_PURGE_TRUNCATION_USEC: return int64_t(st.truncation_usec);
  case MONITOR_PURGE_TRUNCATION_BUSY_RSEGS: return st.truncation_busy_rsegs;
  case MONITOR_PURGE_TRUNCATION_REFERENCED_RSEGS:
    return st.truncation_referenced_rsegs;
  case MONITOR_PURGE_RSEGS_WITHHELD: return st.rsegs_withheld;
  case MONITOR_PURGE_DRAIN_WIDTH: return purge_drain_width();
  case MONITOR_PURGE_DRAIN_RELEASED: return int64_t(st.drain_released);
  case MONITOR_PURGE_DRAIN_WITHHELD_USEC:
    return int64_t(st.drain_withheld_usec);
  default:
    ut_ad("not a counter of the rollback segment drain" == 0);
    return 0;
  }
}
