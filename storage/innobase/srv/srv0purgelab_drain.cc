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

#include "srv0purgelab.h"
#include "trx0drain.h"
#include "trx0purge.h"
#include "trx0sys.h"

static_assert(purge_throttle::rseg_drain::N_RSEGS == TRX_SYS_N_RSEGS, "");

/** The drain's state.  Only the thread that runs undo log truncation
(one at a time, purge_sys_t::iterator::free_history_rseg() with the
rollback segment's latch held) touches it. */
struct purge_rseg_drain_sys_t
{
  /** the rollback segments that the drain withholds */
  purge_throttle::rseg_drain drain;
  /** what truncation passes found (published in purge_throttle_stats) */
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
    purge_throttle_stats.rsegs_withheld= rseg_drain.withheld();
  }
  const bool withheld= rseg_drain.is_withheld(i);
  purge_throttle::truncation_tally &t= purge_rseg_drain_sys.tally;
  t.visited(v, action, withheld, my_interval_timer() / 1000);
  purge_throttle_stats_t &st= purge_throttle_stats;
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
