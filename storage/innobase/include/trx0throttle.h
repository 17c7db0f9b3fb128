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
@file include/trx0throttle.h
Purge lag throttling: the pure decision logic of the formula and of its
coupling to purge.

When the purge of committed transaction history falls behind
(history length above innodb_max_purge_lag), DML threads are delayed
per row so that purge can catch up.  With innodb_purge_coupled_throttle
the delay is coupled to purge: a delayed thread wakes the purge
coordinator, the delay applies only while purge makes progress, and a
coordinator whose batch found nothing while DML is throttled looks again
after poll_interval().  Without it, none of the three holds.

Nothing here depends on InnoDB's state, so that it can be unit tested;
srv0purgelab.cc applies it to the server.
*******************************************************/

#ifndef trx0throttle_h
#define trx0throttle_h

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace purge_throttle
{

/** The per-row DML delay of innodb_max_purge_lag, as trx_purge() computes
it: min(max_delay, 10000 * history / lag - 5000) microseconds once the
history exceeds the lag, else 0.
@param history    history length (committed transactions not purged)
@param lag        innodb_max_purge_lag (0 = no throttling)
@param max_delay  innodb_max_purge_lag_delay (0 = no throttling)
@return delay in microseconds */
constexpr uint64_t formula_delay(uint64_t history, uint64_t lag,
                                 uint64_t max_delay) noexcept
{
  return !lag || !max_delay || history <= lag
    ? 0
    : std::min<uint64_t>(max_delay, 10000 * history / lag - 5000);
}

/** The delay to publish after a purge batch.
@param coupled      innodb_purge_coupled_throttle
@param batch_pages  undo log pages the batch handled; 0 means that purge
                    could not progress (for example, an old read view)
@param history      history length before the batch
@param lag          innodb_max_purge_lag
@param max_delay    innodb_max_purge_lag_delay
@return per-row delay in microseconds */
constexpr uint64_t batch_delay(bool coupled, size_t batch_pages,
                               uint64_t history, uint64_t lag,
                               uint64_t max_delay) noexcept
{
  /* Delaying DML while purge cannot progress only slows the server down
  without shortening the history. */
  return coupled && !batch_pages
    ? 0 : formula_delay(history, lag, max_delay);
}

/** @return whether a delayed DML thread should wake the purge coordinator */
constexpr bool dml_wakes_purge(bool coupled) noexcept { return coupled; }

/** Whether the purge coordinator keeps running after a batch.
@param coupled      innodb_purge_coupled_throttle
@param batch_pages  undo log pages the batch handled
@param throttling   DML is being throttled: the throttle acts on the
                    current history (not the delay published after this
                    batch, which coupled is 0 when the batch found
                    nothing)
@return whether to run another batch rather than go idle */
constexpr bool coordinator_continues(bool coupled, size_t batch_pages,
                                     bool throttling) noexcept
{
  return batch_pages || (coupled && throttling);
}

/** Shortest and longest wait of the coordinator before it looks again
after batches that found nothing to purge while DML is throttled, in
microseconds: the wait doubles with each such batch and is POLL_MAX from
the 5th on (POLL_MIN << 4 > POLL_MAX), so that an old read view costs at
most 1e6 / POLL_MAX wake-ups a second */
constexpr uint64_t POLL_MIN= 10000, POLL_MAX= 100000;
static_assert((POLL_MIN << 3) < POLL_MAX && (POLL_MIN << 4) >= POLL_MAX,
              "poll_interval() reaches POLL_MAX at the 5th empty batch");

/** @return the coordinator's wait before it looks again, in microseconds
@param empty_batches  consecutive batches that found nothing to purge */
constexpr uint64_t poll_interval(unsigned empty_batches) noexcept
{
  return empty_batches <= 1 ? POLL_MIN
    : empty_batches > 4 ? POLL_MAX
    : POLL_MIN << (empty_batches - 1);
}
} // namespace purge_throttle

#endif
