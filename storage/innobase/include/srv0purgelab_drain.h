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
@file include/srv0purgelab_drain.h
The drain of rollback segments (innodb_purge_drain_rsegs): what its hook in
undo log truncation calls.
*******************************************************/

#ifndef srv0purgelab_drain_h
#define srv0purgelab_drain_h

#include "univ.i"

struct trx_rseg_t;

/** innodb_purge_drain_rsegs: how many rollback segments undo log truncation
may withhold from new transactions at once, so as to free their history
(0: purge_sys.skipped_rseg's rotation of one at a time, and the drain
only while the adaptive throttle widens it) */
extern uint innodb_purge_drain_rsegs;

/** After undo log truncation visited a rollback segment
(purge_sys_t::iterator::free_history_rseg(), rseg.latch held exclusively):
withhold it from new transactions, or give it back, as
purge_drain_width() says (include/trx0drain.h).
@param rseg  rollback segment
@param busy  the visit stopped at history that purge has processed but
             that it could not free
@return whether the drain withholds or withheld the segment; if not, the
purge_sys.skipped_rseg rotation applies to it */
bool purge_rseg_drain_visited(trx_rseg_t &rseg, bool busy) noexcept;

/** @return how many rollback segments the drain may withhold at once:
innodb_purge_drain_rsegs, or more while the adaptive throttle drains
(purge_throttle_adaptive_drain_width()) */
uint purge_drain_width() noexcept;

#endif
