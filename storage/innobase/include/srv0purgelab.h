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
@file include/srv0purgelab.h
The coupling of the purge lag throttle to purge
(innodb_purge_coupled_throttle): its switch, its counters, and the functions
that trx_purge(), row_mysql_delay_if_needed() and the purge coordinator call.
*******************************************************/

#ifndef srv0purgelab_h
#define srv0purgelab_h

#include "univ.i"
#include "my_counter.h"

/** innodb_purge_coupled_throttle: couple the DML delay to purge (default
ON); OFF: the formula's delay whether or not purge progresses, no wake-up
of the coordinator by delayed DML, no poll */
extern my_bool innodb_purge_coupled_throttle;

/** Counters of the purge lag throttle, written only by the threads that
it delays and by the purge coordinator; they only grow, and are read
without a latch */
struct purge_throttle_stats_t
{
  /** rows whose DML was delayed by srv_dml_needed_delay */
  Atomic_counter<ulonglong> delayed_rows;
  /** microseconds that delayed DML waited */
  Atomic_counter<ulonglong> delayed_usec;
  /** times a delayed DML thread found the purge coordinator idle, woke it */
  Atomic_counter<ulonglong> dml_wakeups;
  /** times the purge coordinator, after a batch that found nothing to
  purge, polled again rather than go idle because DML is throttled */
  Atomic_counter<ulonglong> coordinator_polls;
};

extern purge_throttle_stats_t purge_throttle_stats;

/** After a purge batch (trx_purge()): note whether it found anything to
purge, for the poll interval, and compute the formula's per-row DML delay.
@param n_pages  undo log pages that the batch handled
@param history  history length before the batch
@return delay in microseconds, to be published in srv_dml_needed_delay */
ulint purge_throttle_after_batch(size_t n_pages, size_t history) noexcept;

/** The purge coordinator found the history empty: no per-row delay
(srv_dml_needed_delay= 0), and the poll interval starts over. */
void purge_throttle_no_history() noexcept;

/** @return whether the purge coordinator should run another batch after
one that handled n_pages (rather than go idle).  If it found nothing to
purge while DML is throttled, it goes idle and is to look again after a
poll interval (purge_throttle_coordinator_idle()).
@param n_pages     undo log pages that the batch handled
@param throttling  DML is being throttled now: the throttle acts on the
                   current history (not merely on the last batch's delay) */
bool purge_throttle_continues(size_t n_pages, bool throttling) noexcept;

/** purge_throttle_continues() with the formula's throttling: its delay
for the history is not 0.
@param n_pages  undo log pages that the batch handled
@param history  history length before the batch */
bool purge_throttle_coordinator_continues(size_t n_pages, size_t history)
  noexcept;

/** The purge coordinator went idle (purge_coordinator_state::do_purge()):
if purge_throttle_continues() asked for a poll, arm a timer that wakes it
after the poll interval.  No task of the pool sleeps. */
void purge_throttle_coordinator_idle() noexcept;

/** The purge coordinator task was disabled for good
(srv_shutdown_purge_tasks()): delete the poll timer. */
void purge_throttle_coordinator_shutdown() noexcept;

/** Delay a DML operation by srv_dml_needed_delay (row_mysql_delay_if_needed).
@param delay  microseconds */
void purge_throttle_dml_sleep(ulint delay) noexcept;

/** Wake the purge coordinator, counting the times it was idle.
@param wakeups  the counter of the times it was idle */
void purge_throttle_wake(Atomic_counter<ulonglong> &wakeups) noexcept;

#endif
