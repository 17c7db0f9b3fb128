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
@file include/trx0gate.h
The adaptive throttle's gate: the queue of connections that wait to be let
in, the published commit rate limit and its staleness, and the switch that
opens the gate.  No latch and no clock of its own: the caller holds one
latch around every non-const call and passes the time in, so that the logic
is unit tested with an injected clock (unittest/purgelab/gate-t.cc);
srv0purgelab.cc applies it with the server's latch, conditions and clock.
*******************************************************/

#ifndef trx0gate_h
#define trx0gate_h

#include "trx0throttle.h"

namespace purge_throttle
{

struct gate_waiter;

/** A connection's place at the gate.  Lives in the connection's trx_t, which
is reused across its transactions and zero-initialised: all zero is "holds
no ticket, owes no wait, was not let in, does not wait". */
struct connection
{
  /** the slot that the gate let the connection run in (since == 0: none) */
  admission_gate::ticket ticket;
  /** the connection committed a read-write transaction that the gate had not
  let in under a limit before it started: it waits at the gate at the next
  point where it holds nothing (owes_after_commit()) */
  bool owes_wait;
  /** the gate let the connection in under a limit (or a test's forced
  queue) for the transaction that it runs or starts next: that
  transaction's commit owes no wait; cleared when a transaction ends */
  bool admitted;
  /** while the connection waits at the gate: its waiter, so that KILL can
  wake it (read and written under the gate's latch) */
  gate_waiter *waiter;
};

/** What a connection does at a point where it holds nothing: no
transaction that has a read view or locks, no table locks, no metadata
locks (handlerton::wait_point) */
enum class point_action
{
  /** nothing: go on */
  PASS,
  /** pay the wait that an earlier read-write commit owes */
  PAY,
  /** be let in before a transaction that may write, while a limit is in
  force: its commit will owe nothing */
  ADMIT
};

/** Decide what a connection does at a point where it holds nothing.  Every
read-write transaction passes the gate once while a limit is in force:
before it starts where the connection holds nothing then (a statement that
changes data, outside a transaction or first in one; a replicated event
group), else after its commit, at the next such point (the end of the
command, the next statement).
@param c          the connection's place
@param may_write  the connection is about to run a statement, or apply an
                  event group, that may start a read-write transaction
@param in_force   a commit rate limit is in force (or a test forces the
                  gate to queue)
@return the action */
inline point_action at_point(const connection &c, bool may_write,
                             bool in_force) noexcept
{
  if (c.owes_wait)
    return point_action::PAY;
  if (may_write && in_force && !c.admitted && !c.ticket.since)
    return point_action::ADMIT;
  return point_action::PASS;
}

/** A connection's transaction ended: whether its commit owes a wait, and
what it keeps for the next transaction.
@param c             the connection's place (admitted is cleared)
@param wrote_commit  the transaction wrote a commit record
@param throttling    the adaptive throttle has a target (and applies to the
                     connection) */
inline void trx_ended(connection &c, bool wrote_commit, bool throttling)
  noexcept
{
  if (wrote_commit && throttling && !c.admitted)
    c.owes_wait= true;
  c.admitted= false;
}

/** A connection waiting at the gate.  Allocated on the waiting thread's
stack; linked into gate::m_head..m_tail while it waits, so that queueing
never allocates under the latch. */
struct gate_waiter
{
  explicit gate_waiter(admission_gate::ticket &t) noexcept : ticket(t) {}
  gate_waiter *prev= nullptr, *next= nullptr;
  /** written with the waiter's slot when it is let in with one */
  admission_gate::ticket &ticket;
  /** the gate let it in (with a ticket, or without while no limit) */
  bool admitted= false;
};

/** The gate: an admission_gate, its FIFO of waiters and the commit rate
limit that sizes it.
Invariants (under the caller's latch): a waiter is in the list iff it is
not admitted and has not left; m_waiting equals the list's length; every
change that frees a slot, resizes or opens the gate admits waiters from the
head as long as the gate lets them in, so that without a limit only waiters
that queued although the gate was open (tests force that) wait, until
open().  limit() and the staleness check read atomics without the latch. */
class gate
{
public:
  /** Publish the controller's output and resize the gate.
  @param now          monotonic clock, nanoseconds (nonzero)
  @param limit        read-write commits per second (0: none)
  @param concurrency  the bound on the transactions let in at once
                      (0: none)
  @param notify       called for each waiter let in */
  template<class Notify>
  void publish(uint64_t now, uint64_t limit, unsigned concurrency,
               Notify notify) noexcept
  {
    m_limit.store(limit, std::memory_order_relaxed);
    m_backed.store(now, std::memory_order_relaxed);
    if (!limit && !concurrency && !m_gate.concurrency())
      return;       /* already open; only open() lets forced waiters in */
    m_gate.resize(now, limit, concurrency);
    m_concurrency.store(concurrency, std::memory_order_relaxed);
    admit(now, notify);
  }

  /** Publish a commit rate limit without a concurrency bound. */
  template<class Notify>
  void publish(uint64_t now, uint64_t limit, Notify notify) noexcept
  { publish(now, limit, 0, notify); }

  /** @return the connections that want to run read-write transactions,
  as far as the gate sees them: those it let in and those waiting
  @param inside  read-write transactions running now, let in or not */
  uint64_t want(uint64_t inside) const noexcept
  {
    return std::max<uint64_t>(inside,
                              uint64_t{m_waiting.load(std::memory_order_relaxed)}
                              + m_tickets.load(std::memory_order_relaxed));
  }

  /** The purge batch that follows a publish() starts: while it runs, what
  was published applies whatever its age
  (adaptive_controller::limit_applies()). */
  void batch_begins() noexcept
  { m_in_batch.store(true, std::memory_order_relaxed); }

  /** The batch ended: that backs the limit as a publish() does, since the
  coordinator that ended it goes on to the next one.  Only the coordinator
  writes m_backed, so the later of the two times is kept without a race.
  @param now  monotonic clock, nanoseconds */
  void batch_ends(uint64_t now) noexcept
  {
    m_backed.store(std::max(now, m_backed.load(std::memory_order_relaxed)),
                   std::memory_order_relaxed);
    m_in_batch.store(false, std::memory_order_relaxed);
  }

  /** Open the gate: no limit, every waiter let in at once (a mode or
  target change, an empty history, shutdown).
  @param now     monotonic clock, nanoseconds
  @param notify  called for each waiter let in */
  template<class Notify>
  void open(uint64_t now, Notify notify) noexcept
  {
    m_limit.store(0, std::memory_order_relaxed);
    m_gate.resize(now, 0);
    m_concurrency.store(0, std::memory_order_relaxed);
    admit(now, notify);
  }

  /** @return the published limit if it applies now (0: none)
  @param now            monotonic clock, nanoseconds
  @param purge_running  purge is enabled and not paused */
  uint64_t limit_in_force(uint64_t now, bool purge_running) const noexcept
  {
    return applies(now, purge_running)
      ? m_limit.load(std::memory_order_relaxed) : 0;
  }

  /** @return whether a rate or a bound is published (it may have
  lapsed): relaxed loads, so that callers read the clock only when it is */
  bool published() const noexcept
  {
    return m_limit.load(std::memory_order_relaxed) ||
      m_concurrency.load(std::memory_order_relaxed);
  }

  /** @return whether the gate admits connections now: a published rate
  or bound that applies
  @param now            monotonic clock, nanoseconds
  @param purge_running  purge is enabled and not paused */
  bool in_force(uint64_t now, bool purge_running) const noexcept
  { return applies(now, purge_running); }

  /** When the first waiter gives up and goes on without a ticket: MAX_WAIT
  after it queued or after the gate last let someone in (or a waiter gave
  up), whichever is later.  So a waiter waits as long as the queue moves,
  however long the queue (the gate bounds the connections inside whatever
  their number), and a gate that lets nobody in for MAX_WAIT still lets a
  waiter go every MAX_WAIT: DML is never stopped.  Only the first waiter
  gives up (gave_up()), so that a stall does not let the whole queue in at
  once, whose transactions would run outside the gate's bound and queue
  on each other's row locks (while the limit lapses, open() lets everyone
  in instead).
  @param queued  when the waiter queued
  @return the time to give up at */
  uint64_t give_up_at(uint64_t queued) const noexcept
  {
    const uint64_t moved= m_admitted.load(std::memory_order_relaxed);
    return std::max(moved, queued) + admission_gate::MAX_WAIT;
  }

  /** The first waiter gave up at give_up_at() (it leaves with dequeue()):
  the others' MAX_WAIT counts from now.
  @param now  monotonic clock, nanoseconds */
  void gave_up(uint64_t now) noexcept
  { m_admitted.store(now, std::memory_order_relaxed); }

  /** @return whether a limit was published that no longer applies (it is
  stale, or purge stopped): the waiters are let in by open()
  @param now            monotonic clock, nanoseconds
  @param purge_running  purge is enabled and not paused */
  bool lapsed(uint64_t now, bool purge_running) const noexcept
  { return published() && !applies(now, purge_running); }

  /** Let a connection in without queueing, if nobody waits and the gate
  has room (no overtaking of waiters).
  @param now  monotonic clock, nanoseconds
  @param t    its ticket, written if it is let in with a slot
  @return whether it was let in */
  bool try_enter(uint64_t now, admission_gate::ticket &t) noexcept
  {
    if (m_head)
      return false;
    const bool in= m_gate.enter(now, t);
    m_tickets.store(m_gate.running(), std::memory_order_relaxed);
    m_rate_bound.store(m_gate.rate_bound(), std::memory_order_relaxed);
    if (in)
      m_admitted.store(now, std::memory_order_relaxed);
    return in;
  }

  /** Let a connection in without the latch and without a ticket, if a
  limit is published, no concurrency bound is in force and nobody waits:
  the commit rate alone decides, by one compare-and-swap.
  @param now  monotonic clock, nanoseconds
  @return whether it was let in (false: take the latched path) */
  bool try_enter_unlatched(uint64_t now) noexcept
  {
    return m_limit.load(std::memory_order_relaxed) &&
      !m_concurrency.load(std::memory_order_relaxed) &&
      !m_waiting.load(std::memory_order_relaxed) &&
      m_gate.admit_unbounded(now);
  }

  /** Queue a waiter at the tail. */
  void enqueue(gate_waiter &w) noexcept
  {
    w.admitted= false;
    w.next= nullptr;
    w.prev= m_tail;
    (m_tail ? m_tail->next : m_head)= &w;
    m_tail= &w;
    m_waiting.store(m_waiting.load(std::memory_order_relaxed) + 1,
                    std::memory_order_relaxed);
  }

  /** Take a waiter that was not let in out of the queue (it gave up: its
  wait timed out or it was killed). */
  void dequeue(gate_waiter &w) noexcept
  {
    if (w.admitted)
      return;
    unlink(w);
  }

  /** Give a connection's ticket back (its transaction or the connection
  ended) and let waiters in on the freed slot.
  @param now     monotonic clock, nanoseconds
  @param t       the ticket (none: no-op); cleared
  @param notify  called for each waiter let in */
  template<class Notify>
  void leave(uint64_t now, admission_gate::ticket &t, Notify notify) noexcept
  {
    if (m_gate.leave(now, t))
      admit(now, notify);
    m_tickets.store(m_gate.running(), std::memory_order_relaxed);
  }

  /** Let in the waiters that the gate has room for now: the first waiter
  calls it once token_wait() has passed, since the commit rate lets a
  waiter in when time passes, not when someone leaves.
  @param now     monotonic clock, nanoseconds
  @param notify  called for each waiter let in */
  template<class Notify>
  void poll(uint64_t now, Notify notify) noexcept { admit(now, notify); }

  /** @return nanoseconds until the commit rate lets the first waiter in
  (0: it may be let in now, or no limit)
  @param now  monotonic clock, nanoseconds */
  uint64_t token_wait(uint64_t now) noexcept
  { return m_gate.token_wait(now); }

  /** Hand out tickets even without a limit (tests: an unlimited gate
  tracks its tickets as a limited one does).
  @param now  monotonic clock, nanoseconds */
  void track_tickets(uint64_t) noexcept
  {
    if (!m_gate.concurrency())
    {
      m_gate.track();
      m_concurrency.store(m_gate.concurrency(), std::memory_order_relaxed);
    }
  }

  /** @return the concurrency limit of the gate (0: none) */
  unsigned concurrency() const noexcept
  { return m_concurrency.load(std::memory_order_relaxed); }
  /** @return the connections waiting */
  unsigned waiting() const noexcept
  { return m_waiting.load(std::memory_order_relaxed); }
  /** @return whether the commit rate limit, not only the concurrency
  window, kept a connection out since the last publish() */
  bool rate_bound() const noexcept
  { return m_rate_bound.load(std::memory_order_relaxed); }
  /** @return the tickets out (some may have expired unnoticed) */
  unsigned tickets() const noexcept
  { return m_tickets.load(std::memory_order_relaxed); }
  /** @return the first waiter (nullptr: none) */
  const gate_waiter *head() const noexcept { return m_head; }

private:
  /** @return whether a published rate or bound applies now
  (adaptive_controller::limit_applies(): not stale, purge running) */
  bool applies(uint64_t now, bool purge_running) const noexcept
  {
    const uint64_t backed= m_backed.load(std::memory_order_relaxed);
    return adaptive_controller::limit_applies
      (published(), (now > backed ? now - backed : 0) / 1000, purge_running,
       m_in_batch.load(std::memory_order_relaxed));
  }

  void unlink(gate_waiter &w) noexcept
  {
    (w.prev ? w.prev->next : m_head)= w.next;
    (w.next ? w.next->prev : m_tail)= w.prev;
    w.prev= w.next= nullptr;
    m_waiting.store(m_waiting.load(std::memory_order_relaxed) - 1,
                    std::memory_order_relaxed);
  }

  /** Let waiters in from the head while the gate lets them in. */
  template<class Notify>
  void admit(uint64_t now, Notify &notify) noexcept
  {
    while (gate_waiter *w= m_head)
    {
      if (!m_gate.enter(now, w->ticket))
        break;
      unlink(*w);
      w->admitted= true;
      m_admitted.store(now, std::memory_order_relaxed);
      notify(*w);
    }
    m_tickets.store(m_gate.running(), std::memory_order_relaxed);
    m_rate_bound.store(m_gate.rate_bound(), std::memory_order_relaxed);
  }

  admission_gate m_gate;
  gate_waiter *m_head= nullptr, *m_tail= nullptr;
  /** the published limit, and when the coordinator last backed it: when
  it published it, or ended the batch that followed */
  std::atomic<uint64_t> m_limit{0}, m_backed{0};
  /** when the gate last let a connection in */
  std::atomic<uint64_t> m_admitted{0};
  std::atomic<unsigned> m_concurrency{0}, m_waiting{0}, m_tickets{0};
  /** batch_begins(): a purge batch runs since the last publish() */
  std::atomic<bool> m_in_batch{false};
  /** admission_gate::rate_bound() after the last admission */
  std::atomic<bool> m_rate_bound{false};
};

} // namespace purge_throttle

#endif
