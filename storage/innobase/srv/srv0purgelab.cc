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
The coupling of the purge lag throttle to purge (see srv0purgelab.h):
the formula's delay, the purge coordinator's polls, the wake-ups and
their counters.
*******************************************************/

#include "srv0purgelab.h"
#include "trx0throttle.h"
#include "trx0purge.h"
#include "srv0srv.h"
#include "srv0start.h"

#include <chrono>
#include <thread>

my_bool innodb_purge_coupled_throttle= TRUE;
purge_throttle_stats_t purge_throttle_stats;

/** The purge coordinator's polls while DML is throttled.  Only the purge
coordinator touches them. */
struct purge_throttle_poll_t
{
  /** consecutive batches that found nothing to purge, saturating at 64
  (poll_interval() is POLL_MAX long before) */
  unsigned empty_batches= 0;
  /** milliseconds after which the idle coordinator is to look again
  (0: it is not to) */
  uint64_t poll_ms= 0;
  /** wakes the coordinator after poll_ms; nullptr until the first poll */
  tpool::timer *poll_timer= nullptr;
};

static purge_throttle_poll_t purge_throttle_poll_sys;

ulint purge_throttle_after_batch(size_t n_pages, size_t history) noexcept
{
  purge_throttle_poll_t &s= purge_throttle_poll_sys;
  if (n_pages)
    s.empty_batches= 0;
  else if (s.empty_batches < 64)
    s.empty_batches++;
  return ulint(purge_throttle::batch_delay(innodb_purge_coupled_throttle,
                                           n_pages, history,
                                           srv_max_purge_lag,
                                           srv_max_purge_lag_delay));
}

void purge_throttle_no_history() noexcept
{
  srv_dml_needed_delay= 0;
  purge_throttle_poll_sys.empty_batches= 0;
}

bool purge_throttle_continues(size_t n_pages, bool throttling) noexcept
{
  if (!purge_throttle::coordinator_continues(innodb_purge_coupled_throttle,
                                             n_pages, throttling))
    return false;
  if (n_pages)
    return true;
  /* Nothing to purge yet, but DML is throttled: rather than go idle for up
  to a second, look again, backing off while batches keep finding nothing
  (an old read view): the coordinator goes idle, and the poll timer wakes
  it (purge_throttle_coordinator_idle()). */
  static_assert(purge_throttle::POLL_MIN >= 1000, "tpool timers count ms");
  purge_throttle_stats.coordinator_polls++;
  purge_throttle_poll_sys.poll_ms=
    purge_throttle::poll_interval(purge_throttle_poll_sys.empty_batches)
    / 1000;
  return false;
}

bool purge_throttle_coordinator_continues(size_t n_pages, size_t history)
  noexcept
{
  /* Whether DML is being throttled now; the per-row delay published after
  this batch cannot tell (coupled, it is 0 when the batch found nothing). */
  return purge_throttle_continues
    (n_pages, purge_throttle::formula_delay(history, srv_max_purge_lag,
                                            srv_max_purge_lag_delay) != 0);
}

/** Wake the purge coordinator after a poll interval (a tpool timer
callback) */
static void purge_throttle_poll(void*) noexcept
{
  purge_sys.wake_if_not_active();
}

void purge_throttle_coordinator_idle() noexcept
{
  purge_throttle_poll_t &s= purge_throttle_poll_sys;
  if (!s.poll_ms)
    return;
  /* created by the coordinator, one at a time, the first time it polls */
  if (!s.poll_timer)
    s.poll_timer= srv_thread_pool->create_timer(purge_throttle_poll);
  s.poll_timer->set_time(int(s.poll_ms), 0);
  s.poll_ms= 0;
}

void purge_throttle_coordinator_shutdown() noexcept
{
  purge_throttle_poll_t &s= purge_throttle_poll_sys;
  delete s.poll_timer;
  s.poll_timer= nullptr;
  s.poll_ms= 0;
}

void purge_throttle_wake(Atomic_counter<ulonglong> &wakeups) noexcept
{
  const bool was_idle= !purge_sys.running();
  purge_sys.wake_if_not_active();
  if (was_idle && purge_sys.running())
    wakeups++;
}

void purge_throttle_dml_sleep(ulint delay) noexcept
{
  if (purge_throttle::dml_wakes_purge(innodb_purge_coupled_throttle))
    purge_throttle_wake(purge_throttle_stats.dml_wakeups);
  const ulonglong start= my_interval_timer();
  std::this_thread::sleep_for(std::chrono::microseconds(delay));
  purge_throttle_stats.delayed_rows++;
  purge_throttle_stats.delayed_usec+= (my_interval_timer() - start) / 1000;
}
