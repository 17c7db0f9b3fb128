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
#include "trx0drain.h"
#include "trx0purge.h"
#include "trx0undo.h"
#include "srv0srv.h"
#include "mtr0log.h"
#include "fsp0fsp.h"
#include "trx0sys.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

my_bool innodb_purge_coupled_throttle= TRUE;
ulong innodb_purge_throttle= PURGE_THROTTLE_FORMULA;
my_bool innodb_undo_log_compact_init= TRUE;
uint innodb_purge_drain_rsegs;
purge_throttle_stats_t purge_throttle_stats;
Atomic_counter<ulonglong> undo_pages_init_compact;
Atomic_counter<ulonglong> undo_pages_init_generic;
/** The adaptive throttle's commit rate limit, read-write transactions per
second, as last published by the controller (0: none; always 0 in the
formula mode, whose per-row delay is srv_dml_needed_delay) */
static Atomic_relaxed<ulonglong> purge_throttle_commit_limit;

/** When the adaptive controller last published purge_throttle_commit_limit,
in microseconds of my_interval_timer() */
static Atomic_relaxed<ulonglong> commit_limit_published;

/** Enforces purge_throttle_commit_limit: lets only as many threads run
read-write transactions at once as that rate needs; gate_mutex protects it */
static purge_throttle::admission_gate admission_gate;
static std::mutex gate_mutex;

/** A thread waiting at the gate */
struct gate_waiter
{
  explicit gate_waiter(purge_throttle::admission_gate::ticket &t) :
    ticket(t) {}
  std::condition_variable cv;
  purge_throttle::admission_gate::ticket &ticket;
  bool admitted= false;
};

/** The threads waiting at the gate, first come first served; gate_mutex
protects it */
static std::deque<gate_waiter*> gate_queue;

/** gate_queue.size() and admission_gate.concurrency(), for other threads */
static Atomic_relaxed<uint> gate_waiting, gate_concurrency;

/** The ticket of the read-write transaction that this thread runs, if the
gate let it in (with the thread pool, of the connection that the thread
last served: a ticket given back early frees its slot early, no more) */
static thread_local purge_throttle::admission_gate::ticket gate_ticket;

/** purge_sys.tail.trx_no after the last purge batch, for other threads */
static Atomic_relaxed<trx_id_t> purge_parsed_trx_no;

/** purge_sys.low_limit_no() of the last purge batch: purge may not parse
undo logs of transactions that committed at or after it, for other threads */
static Atomic_relaxed<trx_id_t> purge_view_limit_no;

/** The adaptive controller; only the purge coordinator touches it */
static purge_throttle::adaptive_controller adaptive;

/** The rollback segments that the drain withholds; only the thread that
runs undo log truncation touches it, one at a time */
static purge_throttle::rseg_drain rseg_drain;
static_assert(purge_throttle::rseg_drain::N_RSEGS == TRX_SYS_N_RSEGS, "");

/** The drain width that the adaptive controller chose, for the thread that
runs undo log truncation */
static Atomic_relaxed<uint> adaptive_drain_width;

/** rseg_drain.withheld(), for other threads */
static Atomic_relaxed<uint> rsegs_withheld;

/** @return whether the adaptive throttle is selected */
static bool throttle_is_adaptive() noexcept
{
  return innodb_purge_throttle == PURGE_THROTTLE_ADAPTIVE;
}

/** @return the read-write transactions that a span of transaction
identifiers covers: each takes two, at its start and at its commit (trx_no
comes from the same sequence) */
static constexpr uint64_t trx_in_ids(trx_id_t ids) noexcept { return ids / 2; }

ulonglong purge_view_blocked_trx() noexcept
{
  const trx_id_t limit= purge_view_limit_no;
  const trx_id_t max_id= trx_sys.get_max_trx_id();
  return std::min<ulonglong>(purge_unparsed_trx(),
                             limit && max_id >= limit
                             ? trx_in_ids(max_id - limit + 1) : 0);
}

ulonglong purge_unparsed_trx() noexcept
{
  const trx_id_t parsed= purge_parsed_trx_no;
  const trx_id_t max_id= trx_sys.get_max_trx_id();
  /* The tail is the trx_no of the undo log that purge parses next.  It
  does not move while the coordinator is idle, after purge has caught up:
  the history bounds what is left. */
  return std::min<ulonglong>(trx_sys.history_size_approx(),
                             max_id >= parsed
                             ? trx_in_ids(max_id - parsed + 1) : 0);
}

/** Let waiting threads in, first come first served, while the gate admits
them; gate_mutex must be held.
@param now  my_interval_timer() */
static void gate_admit_waiters(uint64_t now) noexcept
{
  while (!gate_queue.empty())
  {
    gate_waiter *w= gate_queue.front();
    if (!admission_gate.enter(now, w->ticket))
      break;
    gate_queue.pop_front();
    w->admitted= true;
    w->cv.notify_one();
  }
  gate_waiting= uint(gate_queue.size());
}

ulint purge_throttle_after_batch(size_t n_pages, size_t history) noexcept
{
  /* only this coordinator moves the tail */
  const trx_id_t tail= purge_sys.tail.trx_no;
  purge_parsed_trx_no= tail;
  /* the coordinator owns purge_sys.view: no latch needed to read it */
  purge_view_limit_no= purge_sys.low_limit_no();
  if (!throttle_is_adaptive())
  {
    purge_throttle_commit_limit= 0;
    adaptive_drain_width= 0;
    return ulint(purge_throttle::batch_delay(innodb_purge_coupled_throttle,
                                             n_pages, history,
                                             srv_max_purge_lag,
                                             srv_max_purge_lag_delay));
  }
  /* Purge is blocked (an old read view) when a batch finds nothing to purge
  and the history does not shrink either. */
  static size_t last_history;
  const bool progress= n_pages || history < last_history;
  last_history= history;
  /* purge parses committed transactions in the order of their trx_no */
  const uint64_t purged= trx_in_ids(tail);
  const ulonglong now= my_interval_timer() / 1000;
  const uint64_t limit= adaptive.update(now, history, purged,
                                        srv_max_purge_lag, progress);
  purge_throttle_commit_limit= limit;
  commit_limit_published= now;
  /* Without a limit, nobody queues (enter() lets everyone in): a gate that
  is already open needs no update. */
  if (limit || gate_concurrency)
  {
    std::lock_guard<std::mutex> g{gate_mutex};
    gate_concurrency= admission_gate.resize(now * 1000, limit);
    /* a wider gate, or expired tickets, may let waiting threads in */
    gate_admit_waiters(now * 1000);
  }
  adaptive_drain_width= adaptive.drain_width();
  purge_throttle_stats.error= adaptive.error();
  purge_throttle_stats.purge_rate= ulonglong(adaptive.purge_rate());
  /* no per-row delay: the adaptive wait is taken after commit */
  return 0;
}

bool purge_throttle_coordinator_continues(size_t n_pages, size_t history)
  noexcept
{
  if (!throttle_is_adaptive())
    return purge_throttle::coordinator_continues(innodb_purge_coupled_throttle,
                                                 n_pages,
                                                 srv_dml_needed_delay);
  if (n_pages)
    return true;
  /* Nothing to purge yet, but history over act_from(): rather than go
  idle for up to a second, look again shortly. */
  if (!purge_throttle::adaptive_controller::keep_polling(history,
                                                         srv_max_purge_lag))
    return false;
  std::this_thread::sleep_for(std::chrono::microseconds
                              (uint64_t{purge_throttle::adaptive_controller::POLL}));
  return true;
}

/** Wake the purge coordinator, counting the times it was idle.
@param wakeups  the counter of the times it was idle */
static void purge_throttle_wake(Atomic_counter<ulonglong> &wakeups) noexcept
{
  const bool was_idle= !purge_sys.running();
  purge_sys.wake_if_not_active();
  if (was_idle && purge_sys.running())
    wakeups++;
}

void purge_throttle_adaptive_commit(size_t rseg_history) noexcept
{
  /* Transactions take the rollback segments in turn, so one segment's
  history times their number estimates the whole without touching the
  others' cache lines. */
  if (purge_throttle::adaptive_controller::keep_polling
      (uint64_t{rseg_history} * TRX_SYS_N_RSEGS, srv_max_purge_lag))
    purge_throttle_wake(purge_throttle_stats.commit_wakeups);
}

/** @return the adaptive commit rate limit in force (0: none)
@param now  my_interval_timer() */
static ulonglong commit_limit_in_force(ulonglong now) noexcept
{
  const ulonglong limit= purge_throttle_commit_limit;
  const ulonglong published= commit_limit_published;
  const ulonglong age= now / 1000 > published ? now / 1000 - published : 0;
  return purge_throttle::adaptive_controller::limit_applies
    (limit, age, purge_sys.enabled() && !purge_sys.paused()) ? limit : 0;
}

ulonglong purge_throttle_commit_limit_in_force() noexcept
{
  return commit_limit_in_force(my_interval_timer());
}

uint purge_throttle_concurrency_in_force() noexcept
{
  return commit_limit_in_force(my_interval_timer())
    ? uint{gate_concurrency} : 0;
}

uint purge_throttle_gate_waiting() noexcept { return gate_waiting; }

/** Wait at the gate until let in, at most admission_gate::MAX_WAIT.
@param w  this thread, in gate_queue */
static void gate_wait(gate_waiter &w) noexcept
{
  /* not under gate_mutex, which the coordinator takes after each batch */
  purge_throttle_wake(purge_throttle_stats.dml_wakeups);
  DEBUG_SYNC_C("purge_throttle_gate_queued");
  /* With thread_handling=pool-of-threads this thread is a pool worker: a
  wait that the pool does not know of holds up the other connections of
  its thread group until thread_pool_stall_limit passes. */
  thd_wait_begin(nullptr, THD_WAIT_SLEEP);
  DEBUG_SYNC_C("purge_throttle_gate_wait");
  {
    std::unique_lock<std::mutex> lk{gate_mutex};
    /* The coordinator and committing threads let waiters in; one that
    waited MAX_WAIT goes on without a ticket: DML is never stopped. */
    constexpr uint64_t max_wait= purge_throttle::admission_gate::MAX_WAIT;
    const auto deadline= std::chrono::steady_clock::now() +
      std::chrono::nanoseconds(max_wait);
    while (!w.admitted &&
           w.cv.wait_until(lk, deadline) != std::cv_status::timeout) {}
    if (!w.admitted)
    {
      gate_queue.erase(std::find(gate_queue.begin(), gate_queue.end(), &w));
      gate_waiting= uint(gate_queue.size());
    }
  }
  thd_wait_end(nullptr);
}

void purge_throttle_pay_trx_delay(bool wrote_commit) noexcept
{
  /* mtr purgelab.adaptive_thread_pool: queue at the gate without a limit */
  const bool must_wait= wrote_commit && DBUG_IF("purge_throttle_must_wait");
  /* the common case: no ticket to give back, no limit in force */
  if (!gate_ticket.since && !must_wait &&
      (!wrote_commit || !purge_throttle_commit_limit))
    return;
  const ulonglong start= my_interval_timer();
  if (gate_ticket.since)
  {
    /* this thread's transaction committed: its slot goes to a waiting one */
    std::lock_guard<std::mutex> g{gate_mutex};
    if (admission_gate.leave(start, gate_ticket) && !gate_queue.empty())
      gate_admit_waiters(start);
  }
  if (!must_wait &&
      (!wrote_commit || !commit_limit_in_force(start) || !gate_concurrency))
    return;
  gate_waiter w{gate_ticket};
  {
    std::unique_lock<std::mutex> lk{gate_mutex};
    /* no overtaking: a thread that just gave its slot back queues too */
    if (!must_wait && gate_queue.empty() &&
        admission_gate.enter(start, gate_ticket))
      return;
    gate_queue.push_back(&w);
    gate_waiting= uint(gate_queue.size());
  }
  gate_wait(w);
  purge_throttle_stats.delayed_trx++;
  purge_throttle_stats.delayed_usec+= (my_interval_timer() - start) / 1000;
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

bool purge_rseg_drain_visited(trx_rseg_t &rseg, bool busy) noexcept
{
  ut_ad(rseg.latch.have_wr());
  const unsigned i= unsigned(&rseg - trx_sys.rseg_array);
  const bool ours= rseg_drain.is_withheld(i);
  const uint width= purge_drain_width();
  if (!width && !ours)
    return false;
  /* No reference can be added while the segment is withheld
  (trx_rseg_t::acquire_if_available()), so a segment found unreferenced
  here stays so until it is given back. */
  const uint32_t ref= rseg.ref_load();
  const purge_throttle::rseg_drain::visit v{
    i, busy, ref >= trx_rseg_t::REF, (ref & trx_rseg_t::SKIP) != 0,
    rseg.space == purge_sys.truncate_undo_space.current};
  switch (rseg_drain.visited(v, width)) {
  case purge_throttle::rseg_drain::KEEP:
    break;
  case purge_throttle::rseg_drain::WITHHOLD:
    rseg.set_skip_allocation();
    break;
  case purge_throttle::rseg_drain::RELEASE:
    rseg.clear_skip_allocation();
    break;
  }
  rsegs_withheld= rseg_drain.withheld();
  return ours || rseg_drain.is_withheld(i);
}

uint purge_rsegs_withheld() noexcept { return rsegs_withheld; }

uint purge_drain_width() noexcept
{
  return std::max<uint>(innodb_purge_drain_rsegs, adaptive_drain_width);
}

void trx_undo_page_init_logged(const buf_block_t &block, mtr_t *mtr)
{
  if (innodb_undo_log_compact_init)
  {
    mtr->undo_create(block);
    trx_undo_page_init(block);
    undo_pages_init_compact++;
    return;
  }
  undo_pages_init_generic++;
  /* Log what trx_undo_page_init() writes with generic records, as MariaDB
  10.3.7 did: the page type and the undo page header.  The rest of the page
  is zero after fsp_init_file_page() (INIT_PAGE) in this mini-transaction, in
  the buffer pool and in recovery alike. */
  trx_undo_page_init(block);
  mtr->write<2,mtr_t::FORCED>(block, FIL_PAGE_TYPE + block.page.frame,
                              FIL_PAGE_UNDO_LOG);
  mtr->memcpy(block, TRX_UNDO_PAGE_HDR, TRX_UNDO_PAGE_HDR_SIZE);
}
