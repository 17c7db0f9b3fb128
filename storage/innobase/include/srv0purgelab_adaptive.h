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
@file include/srv0purgelab_adaptive.h
The adaptive purge throttle (innodb_purge_throttle=adaptive): its
variables and counters, and the functions that purge, transaction commit
and ha_innodb.cc call.
*******************************************************/

#ifndef srv0purgelab_adaptive_h
#define srv0purgelab_adaptive_h

#include "srv0purgelab.h"
#include "my_atomic_wrapper.h"
/* ib_counter_t: ut0counter.h needs what srv0srv.h includes before it */
#include "srv0srv.h"
#include "trx0arm.h"

class THD;

/** innodb_purge_throttle: how the DML delay is chosen */
enum purge_throttle_mode { PURGE_THROTTLE_FORMULA= 0, PURGE_THROTTLE_ADAPTIVE };
extern ulong innodb_purge_throttle;

/** innodb_purge_throttle_replica: the adaptive throttle holds replica
appliers too (the SQL thread and the parallel workers) */
extern my_bool innodb_purge_throttle_replica;

/** Counters of the adaptive throttle (INNODB_METRICS module
purge_throttle, SHOW STATUS Innodb_purge_throttle_purge_rate); the time
that connections waited at its gate adds to
purge_throttle_stats_t::delayed_usec */
struct purge_throttle_adaptive_stats_t
{
  /** transactions delayed after their commit */
  Atomic_counter<ulonglong> delayed_trx;
  /** times a commit found the purge coordinator idle while its rollback
  segment's history suggested a history over
  adaptive_controller::wake_level(), and woke it */
  Atomic_counter<ulonglong> commit_wakeups;
  /** history length minus target at the last update */
  Atomic_relaxed<longlong> error;
  /** estimated purge rate, transactions per second */
  Atomic_relaxed<ulonglong> purge_rate;
  /** calls of InnoDB's wait_point, which the server makes only while
  InnoDB wants them (purge_throttle_armed); spread over cache lines, since
  every statement and command of every connection adds to it */
  ib_counter_t<ulint> wait_points;
  /** evaluations of the law within a purge batch that had run for
  POLL_MAX since the last one (the batch timer) */
  Atomic_counter<ulonglong> updates_in_batch;
};

extern purge_throttle_adaptive_stats_t purge_throttle_adaptive_stats;

/** @return the transactions in the history that purge has not parsed yet:
the history length without the undo logs that purge has processed but that
undo log truncation has not removed from the history yet (SHOW STATUS
Innodb_purge_unparsed_trx) */
ulonglong purge_unparsed_trx() noexcept;

/** @return the transactions in the history that purge has processed and
that undo log truncation has not removed yet: the history length minus
purge_unparsed_trx() (SHOW STATUS Innodb_purge_truncation_pending_trx) */
ulonglong purge_truncation_pending_trx() noexcept;

/** @return the part of purge_unparsed_trx() that purge may not parse yet
because the oldest read view of its last batch still sees it: transactions
that committed at or after that view's low limit, 0 if the view had moved
within adaptive_controller::TAU_RATE then (adaptive_controller::view_holds(),
SHOW STATUS Innodb_purge_view_blocked_trx); the rest is work that purge is
behind on */
ulonglong purge_view_blocked_trx() noexcept;

/** After a purge batch (trx_purge(), in place of
purge_throttle_after_batch(), which it calls): note where purge's parse
and its oldest read view are, and evaluate the adaptive controller if it
is selected, else the formula.
@param n_pages  undo log pages that the batch handled
@param history  history length before the batch
@return delay in microseconds, to be published in srv_dml_needed_delay
(0 in the adaptive mode: its wait is taken at the end of the command) */
ulint purge_throttle_adaptive_after_batch(size_t n_pages, size_t history)
  noexcept;

/** After a purge batch (purge_coordinator_state::do_purge(), in place of
purge_throttle_coordinator_continues()): end the batch for the gate, and
tell purge_throttle_continues() whether the selected throttle acts, which
for the adaptive one is also while its law stays in force.
@param n_pages  undo log pages that the batch handled
@param history  history length before the batch
@return whether the purge coordinator should run another batch */
bool purge_throttle_adaptive_continues(size_t n_pages, size_t history)
  noexcept;

/** The purge coordinator found the history empty (in place of
purge_throttle_no_history(), which it calls): no commit rate limit either;
a bound on open transactions stays only while it answers to the history. */
void purge_throttle_adaptive_no_history() noexcept;

/** The purge coordinator shuts down (in place of
purge_throttle_coordinator_shutdown(), which it calls): the timer that
evaluates the law within a long batch is deleted once its callback ran. */
void purge_throttle_adaptive_coordinator_shutdown() noexcept;

/** @return how many rollback segments the adaptive throttle asks undo log
truncation to withhold at once (adaptive_controller::drain_width() of its
last evaluation; 0 in the formula mode) */
uint purge_throttle_adaptive_drain_width() noexcept;

/** Adaptive mode, at the commit of a read-write transaction: wake the purge
coordinator if it is idle and the history, estimated from one rollback
segment's, exceeds adaptive_controller::wake_level().
@param rseg_history  history length of the committing transaction's
                     rollback segment */
void purge_throttle_adaptive_commit(size_t rseg_history) noexcept;

/** Whether the adaptive throttle has a target (purge_throttle::has_target()),
so that InnoDB wants its wait_point called (innobase_wait_point_want()),
and whether its gate has a limit published, so that a commit may owe a
wait (arming::limited()).  Changed only with purge_throttle_sys's latch
held: the target at startup, a change of a setting and shutdown, the limit
where the gate's changes; read relaxed. */
extern purge_throttle::arming purge_throttle_armed;

/** Tell the server whether InnoDB wants its handlerton::wait_point called
(ha_wait_point_want()); defined in handler/purgelab_adaptive_vars.inl.
Called at each change of purge_throttle_armed, with purge_throttle_sys's
latch held.
@param want  the adaptive throttle has a target */
void innobase_wait_point_want(bool want) noexcept;

/** After a read-write transaction committed its undo log to the history:
while the adaptive throttle has a target, make sure that purge runs once
the history nears the target, rather than sleep up to a second while DML
piles it up.
Called before the transaction releases its locks: must not sleep.
@param rseg_history  history length of its rollback segment */
inline void purge_throttle_after_commit(size_t rseg_history) noexcept
{
  /* armed iff adaptive with a target: without a lag, one branch */
  if (UNIV_UNLIKELY(purge_throttle_armed.armed()))
    purge_throttle_adaptive_commit(rseg_history);
}

/** @return the adaptive commit rate limit in force, transactions per
second (0: none): the published one unless purge is disabled or paused or
the coordinator stopped updating it */
ulonglong purge_throttle_commit_limit_in_force() noexcept;

/** @return how many threads the adaptive throttle lets run read-write
transactions at once (0: no limit in force) */
uint purge_throttle_concurrency_in_force() noexcept;

/** @return threads waiting for the adaptive throttle to let them in */
uint purge_throttle_gate_waiting() noexcept;

/** @return the admission tickets out: read-write transactions that the
adaptive throttle let in under its bound and that have not ended (exact;
nothing expires) */
uint purge_throttle_tickets() noexcept;


/** purge_throttle_trx_end() where purge_throttle::trx_end_acts() */
void purge_throttle_trx_ended(purge_throttle::connection &c, bool wrote_commit)
  noexcept;

/** A connection's transaction ended (innobase_commit(), innobase_rollback()
of the whole transaction): give its admission ticket back at once.  After a
read-write commit in the adaptive mode while a limit is published, of a
transaction that the gate had not let in under a limit, note that the
connection owes a wait, which it takes at the next point where it holds
nothing (purge_throttle_wait_point()).  Without a ticket, an admission or
a published limit this is one branch (purge_throttle::trx_end_acts()).
@param c             the connection's place (trx_t::throttle)
@param wrote_commit  the transaction wrote a commit record (trx_t::commit_lsn
                     was set, also when the leader of a binlog group commit
                     committed it in InnoDB) */
inline void purge_throttle_trx_end(purge_throttle::connection &c,
                                   bool wrote_commit) noexcept
{
#ifdef DBUG_OFF
  const bool owing= purge_throttle_armed.limited();
#else
  /* a test may make a commit owe a wait without a limit
  (purge_throttle_must_wait) */
  const bool owing= purge_throttle_armed.armed();
#endif
  if (UNIV_UNLIKELY(purge_throttle::trx_end_acts(c, owing)))
    purge_throttle_trx_ended(c, wrote_commit);
}

/** A connection ends (innobase_close_connection()): give its ticket back;
it owes no wait any more.
@param c  the connection's place (trx_t::throttle) */
void purge_throttle_connection_end(purge_throttle::connection &c) noexcept;

/** Whether a connection must go through the gate at a point where it holds
nothing (cheap; without a latch): it owes a wait, it holds a ticket that no
transaction took up, or it may start a read-write transaction while a limit
is in force and was not let in yet.
@param c          its place (nullptr: it has no InnoDB transaction object)
@param may_write  it is about to run a statement, or apply an event group,
                  that may start a read-write transaction */
bool purge_throttle_point_waits(const purge_throttle::connection *c,
                                bool may_write) noexcept;

/** handlerton::wait_point of InnoDB, once purge_throttle_point_waits():
the connection holds no transaction that has a read view or locks, no table
locks and no metadata locks.  It gives back a ticket that no transaction
took up, pays a wait that it owes, or is let in before a transaction that
may write (purge_throttle::at_point()).  If the gate has no room or token,
or others wait, it waits, first come first served, until the gate lets it
in; that lasts as long as the queue ahead of it takes at the commit rate
limit, without a fixed bound, and ends at once on KILL
(purge_throttle_kill()), on a mode change, at shutdown, and when the gate
has let nobody in for admission_gate::MAX_WAIT.  The processlist shows
"Waiting for purge to catch up".
@param thd        the connection
@param c          its place (trx_t::throttle)
@param may_write  as for purge_throttle_point_waits()
@param stopping   nullptr, or whether the thread was asked to stop without
                  a KILL (a replica applier: STOP SLAVE, shutdown), polled
                  while it waits */
void purge_throttle_wait_point(THD *thd, purge_throttle::connection &c,
                               bool may_write, bool (*stopping)(const THD*))
  noexcept;

/** KILL of a connection (innobase_kill_query(), after the kill level was
set): wake it if it waits at the gate.
@param c  its place (trx_t::throttle) */
void purge_throttle_kill(purge_throttle::connection &c) noexcept;

/** innodb_purge_throttle, innodb_max_purge_lag or
innodb_purge_throttle_replica changed: open the gate,
letting every waiting connection in at once, and arm or disarm InnoDB's
wait_point (purge_throttle_armed); the next purge batch publishes a limit
for the new setting. */
void purge_throttle_mode_changed() noexcept;

/** Create the throttle's latch and arm InnoDB's wait_point if the
settings from startup give a target (InnoDB startup, before any
connection). */
void purge_throttle_init() noexcept;
/** Open the gate for good, disarm the wait_point and free the latch
(InnoDB shutdown, after the connections ended, or a failed startup). */
void purge_throttle_deinit() noexcept;

#endif
