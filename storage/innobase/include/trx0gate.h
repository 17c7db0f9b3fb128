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
The adaptive throttle's gate: admission without a latch while nobody waits,
the FIFO of connections that wait to be let in, the published limit and its
staleness, the switch that opens the gate, and the purge batch that backs
the limit, within which a timer may take the law.  No latch, clock or
condition of its own: the caller holds one latch around the calls that say
so and passes the time in, so that the logic is unit tested with an
injected clock (unittest/purgelab/gate-t.cc); srv0purgelab_adaptive.cc
applies it with the server's latch, each thread's own condition and clock.
*******************************************************/

#ifndef trx0gate_h
#define trx0gate_h

#include "trx0adaptive.h"
#include <thread>

namespace purge_throttle
{

struct gate_waiter;

/** A connection's place at the gate.  Lives in the connection's trx_t, which
is reused across its transactions and zero-initialised: all zero is "holds
no ticket, owes no wait, was not let in, does not wait". */
struct connection
{
  /** the connection holds a ticket: the gate let its next or current
  read-write transaction in under a bound; given back when that
  transaction ends, when the statement it was let in for started none
  (point_action::GIVE_BACK), or when the connection ends */
  admission_gate::ticket ticket;
  /** the connection committed a read-write transaction that the gate had not
  let in under a limit before it started: it waits at the gate at the next
  point where it holds nothing (at_point()) */
  bool owes_wait;
  /** the gate let the connection in under a limit (or a test's forced
  queue) for the transaction that it runs or starts next: that
  transaction's commit owes no wait; cleared when a transaction ends, or
  at the next point if the statement started none (GIVE_BACK) */
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
  /** give back what the gate gave for a statement that started no
  transaction in InnoDB (it failed first, or wrote to another engine): its
  ticket, and its admission */
  GIVE_BACK,
  /** pay the wait that an earlier read-write commit owes */
  PAY,
  /** be let in before a transaction that may write, while a limit is in
  force: its commit will owe nothing */
  ADMIT
};

/** Decide what a connection does at a point where it holds nothing (its
InnoDB transaction has not started).  Every read-write transaction passes
the gate once while a limit is in force: before it starts where the
connection holds nothing then (a statement that changes data, outside a
transaction or first in one; a replicated event group), else after its
commit, at the next such point (the end of the command, the next
statement).  A ticket and an admission are for the transaction that the
statement let in starts: at a point that starts none, those still held go
back.
@param c          the connection's place
@param may_write  the connection is about to run a statement, or apply an
                  event group, that may start a read-write transaction
@param in_force   a commit rate limit is in force (or a test forces the
                  gate to queue)
@return the action */
inline point_action at_point(const connection &c, bool may_write,
                             bool in_force) noexcept
{
  if (!may_write && (c.ticket.held || c.admitted))
    return point_action::GIVE_BACK;
  if (c.owes_wait)
    return point_action::PAY;
  if (may_write && in_force && !c.admitted && !c.ticket.held)
    return point_action::ADMIT;
  return point_action::PASS;
}

/** A connection's transaction ended: whether its commit owes a wait, and
what it keeps for the next transaction.
@param c             the connection's place (admitted is cleared)
@param wrote_commit  the transaction wrote a commit record
@param throttling    the adaptive throttle has a target */
inline void trx_ended(connection &c, bool wrote_commit, bool throttling)
  noexcept
{
  if (wrote_commit && throttling && !c.admitted)
    c.owes_wait= true;
  c.admitted= false;
}

/** A connection waiting at the gate.  Not allocated per wait: the server
keeps one per thread (srv0purgelab_adaptive.cc), with its own condition;
linked into gate::m_head..m_tail while it waits, under the caller's
latch. */
struct gate_waiter
{
  gate_waiter *prev= nullptr, *next= nullptr;
  /** where the ticket goes if it is let in under a bound (the
  connection's); nullptr: it pays a wait owed and takes none */
  admission_gate::ticket *ticket= nullptr;
  /** the gate let it in (with a ticket, or without) */
  bool admitted= false;
};

/** The gate: an admission_gate, its FIFO of waiters and the limit that
sizes it.
Invariants: a waiter is in the list iff it is neither admitted nor gone;
under the latch, m_waiting equals the list's length (enqueue() counts a
waiter first, before it tries once more to let it in, so that a leave()
that races with it sees it and admits under the latch); a connection is let
in without the latch only while nobody waits, so that it does not overtake
the queue; every change that makes room, moves a token or opens the gate
admits waiters from the head and wakes the head that remains, which then
waits for its own token, for room, or for the time at which it gives up
or the limit lapses, whichever comes first.  Without a limit only waiters
that queued although the gate was open (tests force that) wait, until
open(). */
class gate
{
public:
  /** Publish the controller's output and resize the gate (latched).
  @param now          monotonic clock, nanoseconds (nonzero)
  @param limit        read-write commits per second (0: none)
  @param concurrency  the bound on the transactions let in at once
                      (0: none)
  @param notify       called for each waiter let in, and for the first
                      waiter that remains */
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

  /** Publish a commit rate limit without a concurrency bound (latched). */
  template<class Notify>
  void publish(uint64_t now, uint64_t limit, Notify notify) noexcept
  { publish(now, limit, 0, notify); }

  /** @return the connections that want to run read-write transactions,
  as far as the gate sees them: those it let in and those waiting
  @param inside  read-write transactions running now, let in or not */
  uint64_t want(uint64_t inside) const noexcept
  {
    return std::max<uint64_t>(inside, uint64_t{waiting()} + tickets());
  }

  /** The purge batch that follows a publish() starts (coordinator):
  while it runs, what was published applies whatever its age
  (adaptive_controller::limit_applies()), and the law is the timer's to
  claim_batch() until batch_ends(). */
  void batch_begins() noexcept
  { m_batch.store(BATCH_RUNS, std::memory_order_release); }

  /** The batch ended, or there was none (coordinator): that backs the
  limit as a publish() does, since the coordinator goes on to the next
  batch.  An evaluation within the batch ends first: m_backed is written
  by one evaluator at a time, so the later of the two times is kept
  without a race, and it is fresh before the batch stops backing the
  limit.  Once this returns, no claim_batch() succeeds until
  batch_begins().
  @param now    monotonic clock, nanoseconds
  @param yield  called while an evaluation within the batch finishes */
  template<class Yield>
  void batch_ends(uint64_t now, Yield yield) noexcept
  {
    unsigned s= m_batch.load(std::memory_order_acquire);
    /* take the batch as claim_batch() does */
    while (s != BATCH_NONE &&
           (s != BATCH_RUNS ||
            !m_batch.compare_exchange_weak(s, BATCH_EVALUATING,
                                           std::memory_order_acquire,
                                           std::memory_order_acquire)))
      if (s == BATCH_EVALUATING)
      {
        yield();
        s= m_batch.load(std::memory_order_acquire);
      }
    m_backed.store(std::max(now, m_backed.load(std::memory_order_relaxed)),
                   std::memory_order_relaxed);
    m_batch.store(BATCH_NONE, std::memory_order_release);
  }

  /** batch_ends() that yields the CPU while it waits */
  void batch_ends(uint64_t now) noexcept
  { batch_ends(now, []{ std::this_thread::yield(); }); }

  /** A timer takes the law within a running batch (the batch parses
  nothing new, while what was let in commits on), never while the
  coordinator evaluates it; never waits.
  @return whether it may evaluate the law now (then release_batch()) */
  bool claim_batch() noexcept
  {
    unsigned s= BATCH_RUNS;
    return m_batch.compare_exchange_strong(s, BATCH_EVALUATING,
                                           std::memory_order_acquire,
                                           std::memory_order_relaxed);
  }

  /** The timer evaluated the law; the batch still runs. */
  void release_batch() noexcept
  { m_batch.store(BATCH_RUNS, std::memory_order_release); }

  /** Open the gate (latched): no limit, every waiter let in at once (a
  mode or target change, an empty history, a lapsed limit, shutdown).
  Tickets out stay counted until given back.
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
  after it queued or after the gate last let a waiter in (or a waiter gave
  up), whichever is later.  So a waiter waits as long as the queue moves,
  however long the queue, and a gate that lets nobody in for MAX_WAIT
  still lets a waiter go every MAX_WAIT: DML is never stopped.  Only the
  first waiter gives up (gave_up()), so that a stall does not let the
  whole queue in at once, whose transactions would run outside the gate's
  bound (while the limit lapses, open() lets everyone in instead).
  @param queued  when the waiter queued
  @return the time to give up at */
  uint64_t give_up_at(uint64_t queued) const noexcept
  {
    const uint64_t moved= m_admitted.load(std::memory_order_relaxed);
    return std::max(moved, queued) + admission_gate::MAX_WAIT;
  }

  /** The first waiter gave up at give_up_at() (latched; it leaves with
  dequeue()): the others' MAX_WAIT counts from now.
  @param now  monotonic clock, nanoseconds */
  void gave_up(uint64_t now) noexcept
  { m_admitted.store(now, std::memory_order_relaxed); }

  /** @return whether a limit was published that no longer applies (it is
  stale, or purge stopped): the waiters are let in by open()
  @param now            monotonic clock, nanoseconds
  @param purge_running  purge is enabled and not paused */
  bool lapsed(uint64_t now, bool purge_running) const noexcept
  { return published() && !applies(now, purge_running); }

  /** When the first waiter must look again if nothing wakes it: when a
  token accrues (if it waits for one), when the published limit lapses
  unless a purge batch still backs it, or at give_up_at(), whichever
  comes first.  Room under the bound, a new limit and open() wake it.
  @param now     monotonic clock, nanoseconds
  @param queued  when it queued
  @return the time, nanoseconds, not before now */
  uint64_t wake_at(uint64_t now, uint64_t queued) const noexcept
  {
    uint64_t until= give_up_at(queued);
    if (published() && !in_batch())
      until= std::min(until, m_backed.load(std::memory_order_relaxed) +
                      adaptive_controller::STALE * 1000);
    if (const uint64_t token= m_gate.token_wait(now))
      until= std::min(until, now + token);
    return std::max(until, now);
  }

  /** Let a connection in without the latch, if nobody waits and the gate
  has room and a token (no overtaking of waiters).
  @param now  monotonic clock, nanoseconds
  @param t    written with a ticket if it is let in under a bound;
              nullptr: it pays a wait owed and takes none
  @return whether it was let in */
  bool try_enter(uint64_t now, admission_gate::ticket *t) noexcept
  {
    return !m_waiting.load(std::memory_order_seq_cst) && m_gate.enter(now, t);
  }

  /** Queue a waiter at the tail (latched).  It is counted as waiting
  first; then, if nobody is ahead of it, it is let in at once if the gate
  has room and a token (the room may have come from a leave() that did
  not see it yet).
  @param now   monotonic clock, nanoseconds
  @param w     the waiter, its ticket set; not in the list
  @param try_first  false: queue even if the gate would let it in (tests)
  @return whether it was let in (then it is not queued) */
  bool enqueue(uint64_t now, gate_waiter &w, bool try_first= true) noexcept
  {
    w.admitted= false;
    w.prev= w.next= nullptr;
    const unsigned ahead= m_waiting.fetch_add(1, std::memory_order_seq_cst);
    if (try_first && !ahead && m_gate.enter(now, w.ticket))
    {
      m_waiting.fetch_sub(1, std::memory_order_relaxed);
      m_admitted.store(now, std::memory_order_relaxed);
      return w.admitted= true;
    }
    w.prev= m_tail;
    (m_tail ? m_tail->next : m_head)= &w;
    m_tail= &w;
    return false;
  }

  /** Take a waiter that was not let in out of the queue (latched; it gave
  up, was killed or asked to stop); if it was first, the next one is
  woken to wait for its own token.
  @param w       the waiter (admitted: no-op)
  @param notify  called for the new first waiter */
  template<class Notify>
  void dequeue(gate_waiter &w, Notify notify) noexcept
  {
    if (w.admitted)
      return;
    const bool first= m_head == &w;
    unlink(w);
    if (first && m_head)
      notify(*m_head);
  }

  /** Give a ticket back, without the latch.
  @param t  the ticket (none: no-op); cleared
  @return whether connections wait: then the caller calls admit() under
  the latch, since the room may let them in */
  bool leave(admission_gate::ticket &t) noexcept
  {
    return m_gate.leave(t) && m_waiting.load(std::memory_order_seq_cst);
  }

  /** Let in the waiters that the gate has room and tokens for now, from
  the head (latched), and wake the first waiter that remains, so that it
  waits for what it lacks now (a token, room).
  @param now     monotonic clock, nanoseconds
  @param notify  called for each waiter let in, and for the new head */
  template<class Notify>
  void admit(uint64_t now, Notify notify) noexcept
  {
    while (gate_waiter *w= m_head)
    {
      if (!m_gate.enter(now, w->ticket))
      {
        notify(*w);
        break;
      }
      unlink(*w);
      w->admitted= true;
      m_admitted.store(now, std::memory_order_relaxed);
      notify(*w);
    }
  }

  /** @return nanoseconds until the commit rate lets the first waiter in
  (0: it may be let in now, or no rate)
  @param now  monotonic clock, nanoseconds */
  uint64_t token_wait(uint64_t now) const noexcept
  { return m_gate.token_wait(now); }

  /** Hand out tickets even without a limit (latched; tests: an unlimited
  gate counts its tickets as a bounded one does), until the next publish()
  or open(). */
  void track_tickets() noexcept
  {
    if (!m_gate.concurrency())
      m_gate.track();
  }

  /** @return the concurrency limit of the gate (0: none) */
  unsigned concurrency() const noexcept
  { return m_concurrency.load(std::memory_order_relaxed); }
  /** @return the connections waiting */
  unsigned waiting() const noexcept
  { return m_waiting.load(std::memory_order_relaxed); }
  /** @return whether the commit rate limit, not only the bound, kept a
  connection out since the last publish() */
  bool rate_bound() const noexcept { return m_gate.rate_bound(); }
  /** @return the tickets out: read-write transactions let in under a
  bound and not ended */
  unsigned tickets() const noexcept { return m_gate.running(); }
  /** @return the first waiter (nullptr: none; latched) */
  const gate_waiter *head() const noexcept { return m_head; }

private:
  /** @return whether a published rate or bound applies now
  (adaptive_controller::limit_applies(): not stale, purge running) */
  bool applies(uint64_t now, bool purge_running) const noexcept
  {
    const uint64_t backed= m_backed.load(std::memory_order_relaxed);
    return adaptive_controller::limit_applies
      (published(), (now > backed ? now - backed : 0) / 1000, purge_running,
       in_batch());
  }

  /** @return whether a purge batch runs since the last publish() */
  bool in_batch() const noexcept
  { return m_batch.load(std::memory_order_relaxed) != BATCH_NONE; }

  void unlink(gate_waiter &w) noexcept
  {
    (w.prev ? w.prev->next : m_head)= w.next;
    (w.next ? w.next->prev : m_tail)= w.prev;
    w.prev= w.next= nullptr;
    m_waiting.fetch_sub(1, std::memory_order_relaxed);
  }

  /** Read on every statement while a target is set; written by the
  law's evaluator only (publish(), batch_ends()). */
  /** the published limit, and when the coordinator last backed it: when
  it published it, or ended the batch that followed */
  alignas(CACHE_LINE) std::atomic<uint64_t> m_limit{0}, m_backed{0};
  std::atomic<unsigned> m_concurrency{0};
  /** the purge batch: none, it runs, or the law is evaluated within it
  (by claim_batch(), or by batch_ends() taking it back) */
  enum : unsigned { BATCH_NONE, BATCH_RUNS, BATCH_EVALUATING };
  std::atomic<unsigned> m_batch{BATCH_NONE};
  /** Written by the connections that wait. */
  /** waiters in the list, and one that enqueue() is trying to let in */
  alignas(CACHE_LINE) std::atomic<unsigned> m_waiting{0};
  /** when the gate last let a waiter in (or one gave up) */
  std::atomic<uint64_t> m_admitted{0};
  /** the queue, latched */
  gate_waiter *m_head= nullptr, *m_tail= nullptr;
  /** tickets and the rate clock, on cache lines of their own */
  admission_gate m_gate;
};

} // namespace purge_throttle

#endif
