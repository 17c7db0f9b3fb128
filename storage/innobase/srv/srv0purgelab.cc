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
@file srv/srv0purgelab.cc
The fork's run-time switches and counters (see srv0purgelab.h).
*******************************************************/

#include "srv0purgelab.h"
#include "trx0throttle.h"
#include "trx0purge.h"
#include "trx0undo.h"
#include "srv0srv.h"
#include "mtr0log.h"
#include "fsp0fsp.h"

#include <chrono>
#include <thread>

my_bool innodb_purge_coupled_throttle= TRUE;
my_bool innodb_undo_log_compact_init= TRUE;
purge_throttle_stats_t purge_throttle_stats;

ulint purge_throttle_after_batch(size_t n_pages, size_t history) noexcept
{
  return ulint(purge_throttle::batch_delay(innodb_purge_coupled_throttle,
                                           n_pages, history,
                                           srv_max_purge_lag,
                                           srv_max_purge_lag_delay));
}

bool purge_throttle_coordinator_continues(size_t n_pages) noexcept
{
  return purge_throttle::coordinator_continues(innodb_purge_coupled_throttle,
                                               n_pages, srv_dml_needed_delay);
}

void purge_throttle_dml_sleep(ulint delay) noexcept
{
  if (purge_throttle::dml_wakes_purge(innodb_purge_coupled_throttle))
  {
    const bool was_idle= !purge_sys.running();
    purge_sys.wake_if_not_active();
    if (was_idle && purge_sys.running())
      purge_throttle_stats.dml_wakeups++;
  }
  const ulonglong start= my_interval_timer();
  std::this_thread::sleep_for(std::chrono::microseconds(delay));
  purge_throttle_stats.delayed_rows++;
  purge_throttle_stats.delayed_usec+= (my_interval_timer() - start) / 1000;
}

void trx_undo_page_init_logged(const buf_block_t &block, mtr_t *mtr)
{
  if (innodb_undo_log_compact_init)
    mtr->undo_create(block);
  else
  {
    /* Log the bytes that trx_undo_page_init() changes, as MariaDB 10.3.7
    did.  fsp_init_file_page() zero-filled the page and logged INIT_PAGE in
    this mini-transaction, so the zero fields need no log. */
    byte *frame= block.page.frame;
    ut_ad(!mach_read_from_2(FIL_PAGE_TYPE + frame) ||
          mach_read_from_2(FIL_PAGE_TYPE + frame) == FIL_PAGE_TYPE_ALLOCATED);
    ut_ad(!mach_read_from_2(TRX_UNDO_PAGE_HDR + TRX_UNDO_PAGE_TYPE + frame));
    constexpr uint32_t start= TRX_UNDO_PAGE_HDR + TRX_UNDO_PAGE_HDR_SIZE;
    static_assert(TRX_UNDO_PAGE_FREE == TRX_UNDO_PAGE_START + 2, "adjacent");
    mtr->write<2,mtr_t::FORCED>(block, FIL_PAGE_TYPE + frame,
                                FIL_PAGE_UNDO_LOG);
    mtr->write<4,mtr_t::FORCED>(block, TRX_UNDO_PAGE_HDR +
                                TRX_UNDO_PAGE_START + frame,
                                start << 16 | start);
    mtr->memset(block, TRX_UNDO_PAGE_HDR + TRX_UNDO_PAGE_NODE + FLST_PREV +
                FIL_ADDR_PAGE, 4, 0xff);
    mtr->memset(block, TRX_UNDO_PAGE_HDR + TRX_UNDO_PAGE_NODE + FLST_NEXT +
                FIL_ADDR_PAGE, 4, 0xff);
  }
  trx_undo_page_init(block);
}
