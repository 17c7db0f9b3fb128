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
@file srv/srv0purgelab_adaptive.cc
The adaptive purge throttle (see srv0purgelab_adaptive.h): its controller,
which the purge coordinator runs, and its gate, at which connections wait.
*******************************************************/

#include "srv0purgelab_adaptive.h"
#include "srv0purgelab_adaptive_mon.h"
#include "srv0mon.h"
#include "lock0lock.h"
#include "trx0gate.h"
#include "trx0purge.h"
#include "trx0trx.h"
#include "srv0srv.h"
#include "srv0start.h"
#include "trx0sys.h"
#include "ha_prototypes.h"
#include <debug_sync.h>
#include <mysql/service_thd_wait.h>
#include <mysql/service_progress_report.h>

#include <algorithm>
#include <chrono>
#include <thread>

ulong innodb_purge_throttle= PURGE_THROTTLE_ADAPTIVE;
my_bool innodb_purge_throttle_replica= FALSE;
purge_throttle_adaptive_stats_t purge_throttle_adaptive_stats;
/* read on every commit: a cache line of its own */
alignas(CPU_LEVEL1_DCACHE_LINESIZE) purge_throttle::arming purge_throttle_armed;

#ifdef HAVE_PSI_INTERFACE
static PSI_mutex_key purge_throttle_mutex_key;
static PSI_cond_key purge_throttle_cond_key;
static PSI_mutex_info purge_throttle_mutexes[]=
{{&purge_throttle_mutex_key, "purge_throttle_mutex", 0}};
static PSI_cond_info purge_throttle_conds[]=
{{&purge_throttle_cond_key, "purge_throttle_waiter", 0}};
#else
# define purge_throttle_mutex_key 0
# define purge_throttle_cond_key 0
#endif

/** The processlist state of a connection waiting at the gate */
static const char purge_throttle_wait_state[]= "Waiting for purge to catch up";

/** A thread's waiter at the gate: constructed on the thread's first wait,
with a condition of its own (waited for with purge_throttle_sys.mutex), and
destroyed when the thread ends; a wait allocates nothing.  Only threads
that run connections or replica appliers wait. */
struct server_waiter : purge_throttle::gate_waiter
{
  server_waiter() noexcept
  { mysql_cond_init(purge_throttle_cond_key, &cond, nullptr); }
  ~server_waiter() { mysql_cond_destroy(&cond); }
  server_waiter(const server_waiter&)= delete;
  server_waiter &operator=(const server_waiter&)= delete;
  mysql_cond_t cond;
};

/** The waiter of the current thread (a thread waits for one connection at
a time) */
static thread_local server_waiter purge_throttle_waiter;

/** Wakes a waiter: it was let in, became first, or is to look again; the
latch is held */
static void signal_waiter(purge_throttle::gate_waiter &w) noexcept
{
  mysql_cond_signal(&static_cast<server_waiter&>(w).cond);
}

/** The adaptive throttle: its controller and the gate that enforces its
commit rate limit.
Who may touch what: the gate's queue and the calls that gate says are
latched only with mutex held (admission while nobody waits, leave() and
the readers take none); the law (the controller, lock_waits, evaluated_at)
the purge coordinator, or within a long batch the batch timer
(gate.claim_batch()); the Atomic_relaxed members anyone. */
struct purge_throttle_sys_t
{
  /** Protects gate's queue, closed and changes of purge_throttle_armed */
  alignas(CPU_LEVEL1_DCACHE_LINESIZE) mysql_mutex_t mutex;
  /** the server is shutting down: nobody queues any more */
  bool closed= false;
  /** read on every statement and commit, its hot atomics on cache lines
  of their own (purge_throttle::gate) */
  purge_throttle::gate gate;

  /** the adaptive controller */
  alignas(CPU_LEVEL1_DCACHE_LINESIZE)
  purge_throttle::adaptive_controller adaptive;
  /** lock_sys.get_wait_pending() at the last evaluation that found
  lock_sys.wait_mutex free */
  uint64_t lock_waits= 0;
  /** my_interval_timer() at the last evaluation of the law */
  ulonglong evaluated_at= 0;
  /** evaluates the law within a batch that has run for POLL_MAX since the
  last evaluation; created by the coordinator at its first batch with a
  target, deleted at its shutdown */
  tpool::timer *batch_timer= nullptr;
  /** batch_timer is set to fire */
  std::atomic<bool> batch_timer_armed{false};

  /** mutex exists: set by purge_throttle_init() before any connection or
  purge task, cleared by purge_throttle_deinit() after them all (read by
  every admission and leave; not on the mutex's cache line) */
  alignas(CPU_LEVEL1_DCACHE_LINESIZE) Atomic_relaxed<bool> initialised{false};
  /** adaptive_controller::wake_margin() of the last evaluation, for
  adaptive_controller::wake_level() at commit (read on every commit; the
  coordinator writes it once per evaluation) */
  Atomic_relaxed<uint64_t> wake_margin{0};

  /** the drain width that the adaptive controller chose (written with the
  members below after every purge batch) */
  alignas(CPU_LEVEL1_DCACHE_LINESIZE) Atomic_relaxed<uint> adaptive_drain_width{0};
  /** purge_sys.tail.trx_no after the last purge batch */
  Atomic_relaxed<trx_id_t> parsed_trx_no{0};
  /** purge_sys.low_limit_no() of the last purge batch: purge may not parse
  undo logs of transactions that committed at or after it */
  Atomic_relaxed<trx_id_t> view_limit_no{0};
  /** my_interval_timer() at the purge batch that found view_limit_no
  moved */
  ulonglong view_moved_at= 0;
  /** view_limit_no had moved within adaptive_controller::TAU_RATE at the
  last purge batch (adaptive_controller::view_holds()) */
  Atomic_relaxed<bool> view_moved{false};

  /** for ut_ad(owns()): asserts that the caller holds mutex */
  bool owns() const noexcept
  {
    mysql_mutex_assert_owner(&mutex);
    return true;
  }

  /** Publish the law's output (coordinator).
  @param limit        read-write commits per second (0: none)
  @param concurrency  the bound on transactions let in at once (0: none) */
  void publish(ulonglong now, uint64_t limit, unsigned concurrency= 0)
    noexcept
  {
    /* nothing to open when nothing was published */
    if (!initialised || (!limit && !concurrency && !gate.published()))
      return;
    mysql_mutex_lock(&mutex);
    ut_ad(owns());
    gate.publish(now, limit, concurrency, signal_waiter);
    published_changed();
    mysql_mutex_unlock(&mutex);
  }

  /** Open the gate, letting every waiter in, and arm or disarm InnoDB's
  wait_point.
  @param target  the adaptive throttle has a target */
  void open(bool target) noexcept
  {
    if (!initialised)
      return;
    mysql_mutex_lock(&mutex);
    ut_ad(owns());
    open_gate(my_interval_timer());
    arm(target);
    mysql_mutex_unlock(&mutex);
  }

  /** Tell the server whether InnoDB wants its wait_point called; only a
  change reaches it.  The latch is held.
  @param target  the adaptive throttle has a target */
  void arm(bool target) noexcept
  {
    ut_ad(owns());
    if (purge_throttle_armed.set(target))
      innobase_wait_point_want(target);
    ut_ad(purge_throttle_armed.armed() == target);
  }

  /** Tell the commit path whether a limit is published
  (arming::limited()), after each change of it: gate.publish() and
  gate.open() are called only in publish() and open_gate(), which call
  this.  The latch is held. */
  void published_changed() noexcept
  {
    ut_ad(owns());
    purge_throttle_armed.publish(gate.published());
  }

  /** Open the gate, letting every waiter in; nothing is published after.
  The latch is held. */
  void open_gate(ulonglong now) noexcept
  {
    gate.open(now, signal_waiter);
    published_changed();
  }

  /** Give a ticket back: one atomic decrement, and the latch only if
  connections wait, to let them in on the room. */
  void leave(purge_throttle::admission_gate::ticket &t) noexcept
  {
    if (!gate.leave(t) || !initialised)
      return;
    mysql_mutex_lock(&mutex);
    ut_ad(owns());
    gate.admit(my_interval_timer(), signal_waiter);
    mysql_mutex_unlock(&mutex);
  }

  bool admit(THD *thd, purge_throttle::connection &c, bool pay,
             bool (*stopping)(const THD*)) noexcept;

  /** Wake a connection that waits at the gate (KILL). */
  void kill(purge_throttle::connection &c) noexcept
  {
    if (!initialised)
      return;
    /* always under the latch: the waiter tests thd_kill_level() under it
    after publishing c.waiter, and KILL set the level before calling us */
    mysql_mutex_lock(&mutex);
    ut_ad(owns());
    if (c.waiter)
      signal_waiter(*c.waiter);
    mysql_mutex_unlock(&mutex);
  }
};

static purge_throttle_sys_t purge_throttle_sys;

/** @return whether the adaptive throttle is selected */
static bool throttle_is_adaptive() noexcept
{
  return innodb_purge_throttle == PURGE_THROTTLE_ADAPTIVE;
}

/** @return whether purge runs (a published limit applies only then) */
static bool purge_runs() noexcept
{
  return purge_sys.enabled() && !purge_sys.paused();
}

/** @return whether the gate admits connections now; the clock is read
only while a limit is published */
static bool gate_in_force() noexcept
{
  const purge_throttle::gate &g= purge_throttle_sys.gate;
  return g.published() && g.in_force(my_interval_timer(), purge_runs());
}

/** @return the read-write transactions that a span of transaction
identifiers covers: each takes two, at its start and at its commit (trx_no
comes from the same sequence) */
static constexpr uint64_t trx_in_ids(trx_id_t ids) noexcept { return ids / 2; }

ulonglong purge_view_blocked_trx() noexcept
{
  /* A view that moved within adaptive_controller::TAU_RATE keeps nothing:
  what committed after purge's own copy of it is parsed by a batch soon.
  Only a view that holds still for longer blocks what is unparsed. */
  if (purge_throttle_sys.view_moved)
    return 0;
  const trx_id_t limit= purge_throttle_sys.view_limit_no;
  const trx_id_t max_id= trx_sys.get_max_trx_id();
  return std::min<ulonglong>(purge_unparsed_trx(),
                             limit && max_id >= limit
                             ? trx_in_ids(max_id - limit + 1) : 0);
}

/** @return the history that only the end of the oldest read view frees:
what it keeps purge from parsing (purge_view_blocked_trx()), and the
history of every rollback segment that a transaction wrote after it, which
undo log truncation may not free while the view sees that transaction
(!purge_sys.sees(rseg.needs_purge) in free_history_rseg()).  What the view
keeps purge from parsing lies in such segments as well.  0 unless the view
holds (adaptive_controller::view_holds()).  It may exceed the history by a
few transactions (the fields are read without latches):
adaptive_controller::output() saturates. */
static TPOOL_SUPPRESS_TSAN ulonglong purge_view_held_trx() noexcept
{
  const trx_id_t limit= purge_throttle_sys.view_limit_no;
  if (purge_throttle_sys.view_moved || !limit)
    return 0;
  ulonglong held= 0;
  /* like trx_sys_t::history_size_approx(): no rseg.latch */
  for (const trx_rseg_t &rseg : trx_sys.rseg_array)
    if (rseg.space && rseg.needs_purge >= limit)
      held+= rseg.history_size;
  return std::max<ulonglong>(purge_view_blocked_trx(), held);
}

ulonglong purge_unparsed_trx() noexcept
{
  const trx_id_t parsed= purge_throttle_sys.parsed_trx_no;
  const trx_id_t max_id= trx_sys.get_max_trx_id();
  /* The tail is the trx_no of the undo log that purge parses next.  It
  does not move while the coordinator is idle, after purge has caught up:
  the history bounds what is left. */
  return std::min<ulonglong>(trx_sys.history_size_approx(),
                             max_id >= parsed
                             ? trx_in_ids(max_id - parsed + 1) : 0);
}

ulonglong purge_truncation_pending_trx() noexcept
{
  const ulonglong history= trx_sys.history_size_approx();
  const ulonglong unparsed= purge_unparsed_trx();
  return history > unparsed ? history - unparsed : 0;
}

/** Evaluate the adaptive law and publish its output to the gate (purge
coordinator).
@param now       my_interval_timer()
@param x         adaptive_controller::output()
@param pending   of x, what waits for undo log truncation
@param purged    committed transactions that purge has parsed
@param progress  purge can progress
@return the commit rate limit published (0: none) */
static uint64_t purge_throttle_evaluate(ulonglong now, uint64_t x,
                                        uint64_t pending, uint64_t purged,
                                        bool progress) noexcept
{
  purge_throttle_sys_t &s= purge_throttle_sys;
  /* read-write transactions open now, let in with a ticket or not */
  const uint64_t n_open= trx_sys.rw_trx_hash.size();
  /* those let in and not ended: a ticket is held until the commit is
  durable, after the transaction left rw_trx_hash */
  const uint64_t inside= std::max<uint64_t>(n_open, s.gate.tickets());
  /* transactions waiting for a lock (the law reads them only with a
  target).  The coordinator never waits for lock_sys.wait_mutex, for
  which thousands of lock waits may contend: while another holds it, the
  last reading stands. */
  if (srv_max_purge_lag && !mysql_mutex_trylock(&lock_sys.wait_mutex))
  {
    s.lock_waits= lock_sys.get_wait_pending();
    mysql_mutex_unlock(&lock_sys.wait_mutex);
  }
  const uint64_t limit=
    s.adaptive.update(now / 1000, x, pending, purged, srv_max_purge_lag,
                      progress, s.gate.want(n_open), s.gate.rate_bound(),
                      inside, s.lock_waits);
  s.publish(now, limit,
            purge_throttle::ticket_bound(s.adaptive.concurrency(), n_open,
                                         s.gate.tickets()));
  s.adaptive_drain_width= s.adaptive.drain_width();
  s.wake_margin= purge_throttle::adaptive_controller::wake_margin
    (s.adaptive.purge_rate());
  s.evaluated_at= now;
  return limit;
}

/** Evaluate the law on the history now, with a target (purge
coordinator, or the batch timer within a long batch).
@param now      my_interval_timer()
@param history  the history length */
static void purge_throttle_evaluate_history(ulonglong now, size_t history)
  noexcept
{
  purge_throttle_sys_t &s= purge_throttle_sys;
  /* purge parses committed transactions in the order of their trx_no */
  const uint64_t purged= trx_in_ids(s.parsed_trx_no);
  /* The law acts on the history without what no throttle removes: what
  only the end of the oldest read view frees.  Of the rest, the rate
  answers to the whole and the bound on open transactions to what waits
  for undo log truncation.  With innodb_purge_coupled_throttle=OFF it acts
  on the whole history. */
  const uint64_t x= !innodb_purge_coupled_throttle ? history
    : purge_throttle::adaptive_controller::output(history,
                                                  purge_view_held_trx());
  purge_throttle_evaluate(now, x, purge_truncation_pending_trx(), purged,
                          x != 0);
  purge_throttle_adaptive_stats.error= s.adaptive.error();
  purge_throttle_adaptive_stats.purge_rate=
    ulonglong(s.adaptive.purge_rate());
}

/** Set the batch timer to fire, unless it is set already.
@param ms  milliseconds from now */
static void purge_throttle_arm_batch_timer(uint64_t ms) noexcept
{
  purge_throttle_sys_t &s= purge_throttle_sys;
  if (!s.batch_timer_armed.exchange(true, std::memory_order_relaxed))
    s.batch_timer->set_time(int(ms), 0);
}

/** Evaluate the law within a purge batch that has run for POLL_MAX since
the last evaluation (the batch timer's callback).  The batch parses
nothing new until it ends, while what was let in commits on: the law
answers within POLL_MAX here too, not once the batch ends. */
static void purge_throttle_batch_timer(void*) noexcept
{
  purge_throttle_sys_t &s= purge_throttle_sys;
  s.batch_timer_armed.store(false, std::memory_order_relaxed);
  if (!s.gate.claim_batch())
    return; /* between batches: the next one sets the timer */
  const ulonglong now= my_interval_timer();
  uint64_t since= (now - s.evaluated_at) / 1000;
  const bool target= throttle_is_adaptive() && srv_max_purge_lag;
  if (target && since >= purge_throttle::POLL_MAX)
  {
    /* view_moved stays as the batch found it: purge's copy of the oldest
    view stands until the batch ends, however long it takes, and what
    committed after it waits for the next batch, not for a view to close */
    purge_throttle_evaluate_history(now, trx_sys.history_size_approx());
    purge_throttle_adaptive_stats.updates_in_batch++;
    since= 0;
  }
  s.gate.release_batch();
  if (target)
    purge_throttle_arm_batch_timer((purge_throttle::POLL_MAX - since + 999)
                                   / 1000);
}

ulint purge_throttle_adaptive_after_batch(size_t n_pages, size_t history)
  noexcept
{
  purge_throttle_sys_t &s= purge_throttle_sys;
  /* only this coordinator moves the tail */
  const trx_id_t tail= purge_sys.tail.trx_no;
  s.parsed_trx_no= tail;
  /* the coordinator owns purge_sys.view: no latch needed to read it */
  const trx_id_t view_limit_no= purge_sys.low_limit_no();
  const ulonglong now= my_interval_timer();
  /* the oldest read view moved lately: what committed after it waits for
  a batch soon, not for a view to close */
  if (view_limit_no != s.view_limit_no)
    s.view_moved_at= now;
  s.view_moved= !purge_throttle::adaptive_controller::view_holds
    ((now - s.view_moved_at) / 1000);
  s.view_limit_no= view_limit_no;
  /* the poll interval's count of empty batches, and the formula */
  const ulint delay= purge_throttle_after_batch(n_pages, history);
  if (!throttle_is_adaptive())
  {
    s.adaptive.update(0, history, 0, 0, 0, false, 0, false);
    s.publish(now, 0);
    s.adaptive_drain_width= 0;
    return delay;
  }
  purge_throttle_evaluate_history(now, history);
  /* the batch runs now; purge_throttle_adaptive_continues() ends it */
  s.gate.batch_begins();
  if (srv_max_purge_lag)
  {
    /* created by the coordinator, the first time it has a target */
    if (!s.batch_timer)
      s.batch_timer= srv_thread_pool->create_timer(purge_throttle_batch_timer);
    purge_throttle_arm_batch_timer(purge_throttle::POLL_MAX / 1000);
  }
  /* longer than a published limit lives (STALE, 1 s) */
  DBUG_EXECUTE_IF("purge_throttle_long_batch",
                  std::this_thread::sleep_for
                  (std::chrono::milliseconds(1500)););
  /* no per-row delay: the adaptive wait is taken at the end of the command */
  return 0;
}

void purge_throttle_adaptive_no_history() noexcept
{
  purge_throttle_sys_t &s= purge_throttle_sys;
  purge_throttle_no_history();
  const ulonglong now= my_interval_timer();
  s.gate.batch_ends(now);
  if (!throttle_is_adaptive())
  {
    s.adaptive.update(0, 0, 0, 0, 0, false, 0, false);
    s.adaptive_drain_width= 0;
    s.publish(now, 0);
    return;
  }
  /* The rate lapses with an empty history, and so does the bound unless
  it answers to the history (adaptive_controller::update()): the crowd
  that it keeps out would fill the history again. */
  purge_throttle_evaluate(now, 0, 0, trx_in_ids(purge_sys.tail.trx_no),
                          true);
}

bool purge_throttle_adaptive_continues(size_t n_pages, size_t history)
  noexcept
{
  purge_throttle_sys.gate.batch_ends(my_interval_timer());
  if (!throttle_is_adaptive())
    return purge_throttle_coordinator_continues(n_pages, history);
  /* Whether DML is being throttled now; also while the law stays in force
  under ENGAGE * T (connections wait): its limit is republished, where a
  lapsed one would let every waiter in. */
  return purge_throttle_continues
    (n_pages,
     purge_throttle::adaptive_controller::engaged(history, srv_max_purge_lag)
     || purge_throttle_sys.adaptive.in_force());
}

void purge_throttle_adaptive_commit(size_t rseg_history) noexcept
{
  /* Transactions take the rollback segments in turn, so one segment's
  history times their number estimates the whole without touching the
  others' cache lines. */
  if (uint64_t{rseg_history} * TRX_SYS_N_RSEGS >
      purge_throttle::adaptive_controller::wake_level
      (srv_max_purge_lag, purge_throttle_sys.wake_margin))
    purge_throttle_wake(purge_throttle_adaptive_stats.commit_wakeups);
}

ulonglong purge_throttle_commit_limit_in_force() noexcept
{
  return purge_throttle_sys.gate.limit_in_force(my_interval_timer(),
                                                purge_runs());
}

uint purge_throttle_concurrency_in_force() noexcept
{
  return purge_throttle_sys.gate.in_force(my_interval_timer(), purge_runs())
    ? purge_throttle_sys.gate.concurrency() : 0;
}

uint purge_throttle_gate_waiting() noexcept
{ return purge_throttle_sys.gate.waiting(); }

uint purge_throttle_tickets() noexcept
{ return purge_throttle_sys.gate.tickets(); }

/** Let a connection in at a point where it holds nothing: without the
latch if nobody waits and the gate has room and a token, else after
waiting in the gate's FIFO (killable, bounded, visible in the processlist,
announced to a thread pool) until the gate lets it in, the limit lapses or
gate::give_up_at().  The thread's own waiter is queued; the first waiter
sleeps until the next token, room, or the time to give up or to see the
limit lapse, and the others until they are let in or become first.
@param thd  the connection, which holds no transaction and no locks
@param c    its place at the gate
@param pay  it pays a wait that an earlier commit owes, and takes no
            ticket (else it is let in before a transaction that may write,
            with a ticket under a bound)
@param stopping  nullptr, or a test whether the thread was asked to stop
            without a KILL (STOP SLAVE), polled every POLL_MAX
@return whether a limit was in force (or a test forced the queue or a
ticket): let in before a transaction, its commit owes no wait */
bool purge_throttle_sys_t::admit(THD *thd, purge_throttle::connection &c,
                                 bool pay, bool (*stopping)(const THD*)) noexcept
{
  /* mtr: queue at the gate without a limit (let in only by a mode change,
  KILL or after MAX_WAIT) when paying a wait (must_wait) or before a
  transaction (must_admit), take a ticket without a limit, wait unbounded */
  const bool must_wait= pay ? DBUG_IF("purge_throttle_must_wait")
    : DBUG_IF("purge_throttle_must_admit");
  const bool take_ticket= !pay && DBUG_IF("purge_throttle_take_ticket");
  /* a ticket goes back when the transaction it let in ends, or at the next
  point if none started (point_action::GIVE_BACK) */
  ut_ad(pay || !c.ticket.held);
  purge_throttle::admission_gate::ticket *const ticket=
    pay ? nullptr : &c.ticket;
  /* nothing published: no limit can be in force, and no clock is read */
  if (!must_wait && !take_ticket && !gate.published())
    return false;
  const ulonglong start= my_interval_timer();
  const bool limited= must_wait || take_ticket ||
    gate.in_force(start, purge_runs());
  if (!initialised || srv_shutdown_state != SRV_SHUTDOWN_NONE || !limited)
    return false;
  if (take_ticket)
  {
    mysql_mutex_lock(&mutex);
    ut_ad(owns());
    gate.track_tickets();
    mysql_mutex_unlock(&mutex);
  }
  /* nobody waits, and there is room and a token: no latch */
  if (!must_wait && gate.try_enter(start, ticket))
    return true;
  server_waiter &w= purge_throttle_waiter;
  ut_ad(!w.prev && !w.next);
  w.ticket= ticket;
  mysql_mutex_lock(&mutex);
  ut_ad(owns());
  if (closed || gate.enqueue(my_interval_timer(), w, !must_wait))
  {
    mysql_mutex_unlock(&mutex);
    return true;
  }
  mysql_mutex_unlock(&mutex);

  if (purge_throttle::dml_wakes_purge(innodb_purge_coupled_throttle))
    purge_throttle_wake(purge_throttle_stats.dml_wakeups);
  DEBUG_SYNC_C("purge_throttle_gate_queued");
  /* With thread_handling=pool-of-threads this thread is a pool worker: a
  wait that the pool does not know of holds up the other connections of
  its thread group until thread_pool_stall_limit passes. */
  thd_wait_begin(thd, THD_WAIT_SLEEP);
  DEBUG_SYNC_C("purge_throttle_gate_wait");
  const bool unbounded= DBUG_IF("purge_throttle_wait_unbounded");
  const ulonglong queued= my_interval_timer();
  const char *old_state= thd_proc_info(thd, purge_throttle_wait_state);
  mysql_mutex_lock(&mutex);
  ut_ad(owns());
  /* KILL (innobase_kill_query(), purge_throttle_kill()) signals w.cond
  under mutex, after it set the kill level */
  c.waiter= &w;
  /* Those who leave, the coordinator, mode switches and KILL wake it; the
  first waiter also wakes at its next token, when the limit would lapse
  (then it opens the gate) and at give_up_at() (then it goes on without a
  ticket): DML is never stopped. */
  while (!w.admitted && !closed && !thd_kill_level(thd) &&
         !(stopping && stopping(thd)))
  {
    const ulonglong now= my_interval_timer();
    ulonglong until= ~0ULL;
    if (!unbounded && gate.head() == &w)
    {
      if (gate.lapsed(now, purge_runs()))
      {
        /* no coordinator backs the limit any more: nobody waits */
        open_gate(now);
        break;
      }
      gate.admit(now, signal_waiter);
      if (w.admitted)
        break;
      if (now >= gate.give_up_at(queued))
      {
        /* the gate let nobody in for MAX_WAIT: go on without a ticket,
        and the next waiter waits MAX_WAIT more */
        gate.gave_up(now);
        break;
      }
      until= gate.wake_at(now, queued);
    }
    /* nobody signals a STOP SLAVE: look again after POLL_MAX */
    if (stopping)
      until= std::min<ulonglong>(until, now + purge_throttle::POLL_MAX *
                                 1000);
    if (until == ~0ULL)
      mysql_cond_wait(&w.cond, &mutex);
    else
    {
      struct timespec deadline;
      set_timespec_nsec(deadline, until - now);
      mysql_cond_timedwait(&w.cond, &mutex, &deadline);
    }
  }
  c.waiter= nullptr;
  /* out of the queue if not let in; the next first waiter is woken */
  gate.dequeue(w, signal_waiter);
  w.ticket= nullptr;
  mysql_mutex_unlock(&mutex);
  /* killed as it was let in: the statement does not run */
  if (ticket && ticket->held && thd_kill_level(thd))
    leave(c.ticket);
  thd_proc_info(thd, old_state);
  thd_wait_end(thd);
  purge_throttle_adaptive_stats.delayed_trx++;
  purge_throttle_stats.delayed_usec+= (my_interval_timer() - start) / 1000;
  return true;
}

/** @return whether the adaptive throttle has a target */
static bool throttle_has_target() noexcept
{
  return purge_throttle::has_target(throttle_is_adaptive(),
                                    srv_max_purge_lag);
}

/** @return whether a limit is in force at a point that may let a
transaction in, or a test forces the gate */
static bool point_in_force() noexcept
{
  return DBUG_IF("purge_throttle_must_admit") ||
    DBUG_IF("purge_throttle_take_ticket") || gate_in_force();
}

bool purge_throttle_point_waits(const purge_throttle::connection *c,
                                bool may_write) noexcept
{
  static const purge_throttle::connection none{};
  const purge_throttle::connection &k= c ? *c : none;
  if (purge_throttle::at_point(k, may_write, false) !=
      purge_throttle::point_action::PASS)
    return true;
  return may_write &&
    purge_throttle::at_point(k, true, point_in_force()) !=
    purge_throttle::point_action::PASS;
}

void purge_throttle_wait_point(THD *thd, purge_throttle::connection &c,
                               bool may_write, bool (*stopping)(const THD*))
  noexcept
{
  if (purge_throttle::at_point(c, may_write, false) ==
      purge_throttle::point_action::GIVE_BACK)
  {
    /* the statement that it was let in for started no transaction here */
    purge_throttle_sys.leave(c.ticket);
    c.admitted= false;
  }
  if (purge_throttle::at_point(c, may_write, false) ==
      purge_throttle::point_action::PAY)
  {
    /* the wait of the transaction that committed; it takes no ticket */
    c.owes_wait= false;
    purge_throttle_sys.admit(thd, c, true, stopping);
  }
  /* a transaction that may write is let in on its own */
  if (may_write &&
      purge_throttle::at_point(c, true, point_in_force()) ==
      purge_throttle::point_action::ADMIT)
    c.admitted= purge_throttle_sys.admit(thd, c, false, stopping);
}

void purge_throttle_kill(purge_throttle::connection &c) noexcept
{
  purge_throttle_sys.kill(c);
}

void purge_throttle_trx_ended(purge_throttle::connection &c,
                              bool wrote_commit) noexcept
{
  purge_throttle_sys.leave(c.ticket);
  /* a commit owes a wait only while a limit is published, or a test
  queues it without one (purge_throttle_must_wait) */
  purge_throttle::trx_ended(c, wrote_commit,
                            purge_throttle_armed.limited() ||
                            (DBUG_IF("purge_throttle_must_wait") &&
                             purge_throttle_armed.armed()));
}

void purge_throttle_connection_end(purge_throttle::connection &c) noexcept
{
  purge_throttle_sys.leave(c.ticket);
  c.owes_wait= false;
  c.admitted= false;
}

void purge_throttle_mode_changed() noexcept
{
  purge_throttle_sys.open(throttle_has_target());
}

void purge_throttle_init() noexcept
{
  purge_throttle_sys_t &s= purge_throttle_sys;
  ut_ad(!s.initialised);
#ifdef HAVE_PSI_INTERFACE
  mysql_mutex_register("innodb", purge_throttle_mutexes,
                       array_elements(purge_throttle_mutexes));
  mysql_cond_register("innodb", purge_throttle_conds,
                      array_elements(purge_throttle_conds));
#endif
  mysql_mutex_init(purge_throttle_mutex_key, &s.mutex, nullptr);
  s.closed= false;
  s.initialised= true;
  /* the settings from the command line and the configuration files */
  mysql_mutex_lock(&s.mutex);
  ut_ad(s.owns());
  s.arm(throttle_has_target());
  mysql_mutex_unlock(&s.mutex);
}

void purge_throttle_deinit() noexcept
{
  purge_throttle_sys_t &s= purge_throttle_sys;
  if (!s.initialised)
    return;
  mysql_mutex_lock(&s.mutex);
  ut_ad(s.owns());
  s.closed= true;
  s.open_gate(my_interval_timer());
  ut_ad(!s.gate.waiting());
  /* every connection ended (trx_sys_t::close() found no trx_t left), and
  each gave its ticket back */
  ut_ad(!s.gate.tickets());
  s.arm(false);
  mysql_mutex_unlock(&s.mutex);
  mysql_mutex_destroy(&s.mutex);
  s.initialised= false;
}

void purge_throttle_adaptive_coordinator_shutdown() noexcept
{
  purge_throttle_sys_t &s= purge_throttle_sys;
  /* waits for a callback that runs */
  delete s.batch_timer;
  s.batch_timer= nullptr;
  s.batch_timer_armed.store(false, std::memory_order_relaxed);
  purge_throttle_coordinator_shutdown();
}

uint purge_throttle_adaptive_drain_width() noexcept
{ return purge_throttle_sys.adaptive_drain_width; }

int64_t purge_throttle_adaptive_monitor_value(unsigned id) noexcept
{
  const purge_throttle_adaptive_stats_t &st= purge_throttle_adaptive_stats;
  switch (static_cast<monitor_id_t>(id)) {
  case MONITOR_PURGE_DML_DELAYED_TRX: return int64_t(st.delayed_trx);
  case MONITOR_PURGE_COMMIT_WAKEUPS: return int64_t(st.commit_wakeups);
  case MONITOR_PURGE_THROTTLE_TICKETS: return purge_throttle_tickets();
  case MONITOR_PURGE_THROTTLE_ERROR: return st.error;
  case MONITOR_PURGE_THROTTLE_WAIT_POINTS: return int64_t(st.wait_points);
  case MONITOR_PURGE_THROTTLE_UPDATES_IN_BATCH:
    return int64_t(st.updates_in_batch);
  default:
    ut_ad("not a counter of the adaptive throttle" == 0);
    return 0;
  }
}
