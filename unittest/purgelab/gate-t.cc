/* Copyright (c) 2026, purgelab developers.

   This program is free software; you can redistribute it and/or modify
   it under the terms of the GNU General Public License as published by
   the Free Software Foundation; version 2 of the License.

   This program is distributed in the hope that it will be useful,
   but WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
   GNU General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program; if not, write to the Free Software
   Foundation, Inc., 51 Franklin St, Fifth Floor, Boston, MA 02110-1335  USA */

/* Unit tests of the adaptive throttle's gate (trx0gate.h): the count of
tickets and its give-back, the queue, the staleness of a published limit
and the switch that opens the gate, with an injected clock (nanoseconds);
and the lock-free admission under threads, with a real clock. */

#include "trx0gate.h"
#include <gtest/gtest.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

using namespace purge_throttle;

namespace
{
constexpr uint64_t MS= 1000000;

/** records the waiters let in, in order, and counts the wake-ups of those
that stay */
struct recorder
{
  explicit recorder(std::vector<const gate_waiter*> *l,
                    unsigned *w= nullptr) : log(l), woken(w) {}
  std::vector<const gate_waiter*> *log;
  unsigned *woken;
  void operator()(gate_waiter &w) const
  {
    if (w.admitted)
      log->push_back(&w);
    else if (woken)
      ++*woken;
  }
};

/** a waiter that would take a ticket into t */
struct ticketed : gate_waiter
{
  explicit ticketed(admission_gate::ticket &t) { ticket= &t; }
};

/** a commit rate limit at which the tokens do not bind (a bucket of 50,000
admissions) */
constexpr uint64_t FAST= 1000000;

/** A gate with a limit in force that admits exactly n connections at once:
the caller's bound, at a rate high enough that tokens do not bind. */
void limit_to(gate &g, uint64_t now, unsigned n,
              std::vector<const gate_waiter*> &log)
{
  g.publish(now, FAST, n, recorder{&log});
  ASSERT_EQ(n, g.concurrency());
  ASSERT_TRUE(g.in_force(now, true));
}
}

TEST(Gate, WithoutLimitEveryoneEntersWithoutTicket)
{
  gate g;
  admission_gate::ticket t;
  EXPECT_TRUE(g.try_enter(1, &t));
  EXPECT_FALSE(t.held);
  EXPECT_EQ(0u, g.tickets());
  EXPECT_EQ(0u, g.limit_in_force(1, true));
}

TEST(Gate, FullGateQueuesFirstComeFirstServed)
{
  gate g;
  std::vector<const gate_waiter*> log;
  uint64_t now= 1000 * MS;
  limit_to(g, now, 2, log);
  admission_gate::ticket a, b, c, d;
  EXPECT_TRUE(g.try_enter(now, &a));
  EXPECT_TRUE(g.try_enter(now, &b));
  EXPECT_EQ(2u, g.tickets());
  EXPECT_FALSE(g.try_enter(now, &c));
  ticketed wc(c), wd(d);
  EXPECT_FALSE(g.enqueue(now, wc));
  EXPECT_FALSE(g.enqueue(now, wd));
  EXPECT_EQ(2u, g.waiting());
  /* one ticket given back: someone waits, so the caller admits under the
  latch, and the first waiter is let in with a ticket */
  now+= MS;
  ASSERT_TRUE(g.leave(a));
  EXPECT_FALSE(a.held);
  EXPECT_EQ(1u, g.tickets());
  g.admit(now, recorder{&log});
  ASSERT_EQ(1u, log.size());
  EXPECT_EQ(&wc, log[0]);
  EXPECT_TRUE(wc.admitted);
  EXPECT_TRUE(c.held);
  EXPECT_FALSE(wd.admitted);
  EXPECT_EQ(1u, g.waiting());
  EXPECT_EQ(&wd, g.head());
  EXPECT_EQ(2u, g.tickets());
  /* everyone gives back: no ticket is left out */
  ASSERT_TRUE(g.leave(b));
  g.admit(now, recorder{&log});
  EXPECT_TRUE(wd.admitted);
  EXPECT_FALSE(g.leave(c)) << "nobody waits: no latch needed";
  EXPECT_FALSE(g.leave(d));
  EXPECT_FALSE(g.leave(d)) << "given back once";
  EXPECT_EQ(0u, g.tickets());
  EXPECT_EQ(0u, g.waiting());
}

TEST(Gate, NoOvertakingWhileSomeoneWaits)
{
  gate g;
  std::vector<const gate_waiter*> log;
  uint64_t now= 1000 * MS;
  limit_to(g, now, 2, log);
  admission_gate::ticket a, b, c, e;
  g.try_enter(now, &a);
  g.try_enter(now, &b);
  ticketed wc(c);
  g.enqueue(now, wc);
  /* room again, not yet taken by the waiter: a connection arriving
  meanwhile does not take it, nor does one that queues behind */
  EXPECT_TRUE(g.leave(a));
  EXPECT_FALSE(g.try_enter(now, &e));
  EXPECT_FALSE(e.held);
  ticketed we(e);
  EXPECT_FALSE(g.enqueue(now, we));
  g.admit(now, recorder{&log});
  ASSERT_EQ(1u, log.size());
  EXPECT_EQ(&wc, log[0]);
  EXPECT_EQ(&we, g.head());
  g.dequeue(we, recorder{&log});
  g.leave(b);
  g.leave(c);
  EXPECT_EQ(0u, g.tickets());
}

/* A ticket given back just before a connection queues is not lost: the
waiter is counted before it tries once more, under the latch. */
TEST(Gate, RoomMadeBeforeQueueingLetsTheWaiterIn)
{
  gate g;
  std::vector<const gate_waiter*> log;
  const uint64_t now= 1000 * MS;
  limit_to(g, now, 1, log);
  admission_gate::ticket a, b;
  ASSERT_TRUE(g.try_enter(now, &a));
  EXPECT_FALSE(g.try_enter(now, &b));
  /* the holder leaves before the other one queues: it sees nobody */
  EXPECT_FALSE(g.leave(a));
  ticketed wb(b);
  EXPECT_TRUE(g.enqueue(now, wb)) << "let in at once, not queued";
  EXPECT_TRUE(wb.admitted);
  EXPECT_TRUE(b.held);
  EXPECT_EQ(nullptr, g.head());
  EXPECT_EQ(0u, g.waiting());
  EXPECT_EQ(1u, g.tickets());
  g.leave(b);
}

TEST(Gate, GivingUpLeavesTheQueueConsistent)
{
  gate g;
  std::vector<const gate_waiter*> log;
  unsigned woken= 0;
  uint64_t now= 1000 * MS;
  limit_to(g, now, 2, log);
  admission_gate::ticket a, b, t1, t2, t3;
  g.try_enter(now, &a);
  g.try_enter(now, &b);
  ticketed w1(t1), w2(t2), w3(t3);
  g.enqueue(now, w1);
  g.enqueue(now, w2);
  g.enqueue(now, w3);
  g.dequeue(w2, recorder{&log, &woken});   /* timed out or killed */
  EXPECT_EQ(0u, woken) << "not first: nobody is woken";
  EXPECT_EQ(2u, g.waiting());
  g.leave(a);
  g.admit(now, recorder{&log});
  g.leave(b);
  g.admit(now, recorder{&log});
  ASSERT_EQ(2u, log.size());
  EXPECT_EQ(&w1, log[0]);
  EXPECT_EQ(&w3, log[1]);
  EXPECT_FALSE(w2.admitted);
  EXPECT_FALSE(t2.held);
  EXPECT_EQ(nullptr, g.head());
  EXPECT_EQ(0u, g.waiting());
  /* dequeue() of an admitted waiter is a no-op */
  g.dequeue(w1, recorder{&log});
  EXPECT_EQ(0u, g.waiting());
  /* the first waiter leaving wakes the next one */
  g.enqueue(now, w2);
  ticketed w4(a);
  g.enqueue(now, w4);
  g.dequeue(w2, recorder{&log, &woken});
  EXPECT_EQ(1u, woken);
  EXPECT_EQ(&w4, g.head());
  g.dequeue(w4, recorder{&log});
  g.leave(t1);
  g.leave(t3);
  EXPECT_EQ(0u, g.tickets());
  EXPECT_EQ(0u, g.waiting());
}

TEST(Gate, OpenLetsEveryWaiterInAtOnce)
{
  gate g;
  std::vector<const gate_waiter*> log;
  uint64_t now= 1000 * MS;
  limit_to(g, now, 2, log);
  admission_gate::ticket a, b;
  g.try_enter(now, &a);
  g.try_enter(now, &b);
  std::vector<admission_gate::ticket> t(10);
  std::vector<ticketed*> w;
  for (auto &ti : t)
  {
    w.push_back(new ticketed(ti));
    g.enqueue(now, *w.back());
  }
  EXPECT_EQ(10u, g.waiting());
  g.open(now, recorder{&log});
  EXPECT_EQ(10u, log.size());
  EXPECT_EQ(0u, g.waiting());
  EXPECT_EQ(0u, g.concurrency());
  EXPECT_EQ(0u, g.limit_in_force(now, true));
  for (size_t i= 0; i < w.size(); i++)
  {
    EXPECT_TRUE(w[i]->admitted);
    EXPECT_FALSE(t[i].held);            /* let in without a ticket */
    delete w[i];
  }
  /* the tickets that were out stay counted and are given back as usual */
  EXPECT_EQ(2u, g.tickets());
  EXPECT_FALSE(g.leave(a));
  EXPECT_FALSE(g.leave(b));
  EXPECT_EQ(0u, g.tickets());
}

TEST(Gate, ZeroLimitAfterALimitLetsWaitersIn)
{
  gate g;
  std::vector<const gate_waiter*> log;
  uint64_t now= 1000 * MS;
  limit_to(g, now, 2, log);
  admission_gate::ticket a, b, c;
  g.try_enter(now, &a);
  g.try_enter(now, &b);
  ticketed wc(c);
  g.enqueue(now, wc);
  g.publish(now + MS, 0, recorder{&log});   /* the history emptied */
  EXPECT_TRUE(wc.admitted);
  EXPECT_FALSE(c.held);
  EXPECT_EQ(0u, g.waiting());
  g.leave(a);
  g.leave(b);
  EXPECT_EQ(0u, g.tickets());
}

TEST(Gate, ZeroLimitWithoutOneDoesNotReleaseForcedWaiters)
{
  /* mtr's purge_throttle_must_wait queues without a limit; only open()
  (a mode change), KILL or the wait's bound let it go */
  gate g;
  std::vector<const gate_waiter*> log;
  admission_gate::ticket c;
  ticketed wc(c);
  EXPECT_FALSE(g.enqueue(4 * MS, wc, false));
  g.publish(5 * MS, 0, recorder{&log});
  EXPECT_FALSE(wc.admitted);
  g.open(6 * MS, recorder{&log});
  EXPECT_TRUE(wc.admitted);
  EXPECT_FALSE(c.held);
}

/* Nothing expires: a gate whose tickets are all out lets a waiter in only
when one is given back, however long that takes. */
TEST(Gate, ATicketIsHeldUntilGivenBack)
{
  gate g;
  std::vector<const gate_waiter*> log;
  uint64_t now= 1000 * MS;
  limit_to(g, now, 2, log);
  admission_gate::ticket a, b, c;
  g.try_enter(now, &a);
  g.try_enter(now, &b);
  ticketed wc(c);
  g.enqueue(now, wc);
  now+= 3600000 * MS;
  g.publish(now, FAST, 2, recorder{&log});
  g.admit(now, recorder{&log});
  EXPECT_FALSE(wc.admitted);
  EXPECT_EQ(2u, g.tickets());
  ASSERT_TRUE(g.leave(a));
  g.admit(now, recorder{&log});
  EXPECT_TRUE(wc.admitted);
  EXPECT_TRUE(c.held);
  g.leave(b);
  g.leave(c);
  EXPECT_EQ(0u, g.tickets());
}

TEST(Gate, PublishedLimitGoesStale)
{
  gate g;
  std::vector<const gate_waiter*> log;
  const uint64_t t0= 1000 * MS, STALE= adaptive_controller::STALE * 1000;
  g.publish(t0, 500, recorder{&log});
  EXPECT_EQ(500u, g.limit_in_force(t0, true));
  EXPECT_TRUE(g.in_force(t0, true));
  EXPECT_EQ(500u, g.limit_in_force(t0 + STALE - 1000, true));
  EXPECT_EQ(0u, g.limit_in_force(t0 + STALE, true));
  EXPECT_FALSE(g.in_force(t0 + STALE, true));
  /* purge disabled or paused: no limit applies */
  EXPECT_EQ(0u, g.limit_in_force(t0, false));
  EXPECT_FALSE(g.in_force(t0, false));
  /* a clock read before the publication is not negative age */
  EXPECT_EQ(500u, g.limit_in_force(t0 - MS, true));
  /* while the batch that followed runs, the limit applies whatever its
  age */
  g.batch_begins();
  EXPECT_EQ(500u, g.limit_in_force(t0 + STALE, true));
  EXPECT_EQ(500u, g.limit_in_force(t0 + 100 * STALE, true));
  EXPECT_EQ(0u, g.limit_in_force(t0 + STALE, false));
  /* once it ended, STALE applies again, counted from its end: the
  coordinator that ended it goes on to parse the next batch, which under
  load can take a while, and a limit that lapsed then would let every
  waiter in at once */
  g.batch_ends(t0 + 100 * STALE);
  EXPECT_EQ(500u, g.limit_in_force(t0 + 100 * STALE + STALE - 1000, true));
  EXPECT_EQ(0u, g.limit_in_force(t0 + 101 * STALE, true));
  /* a clock read before the batch ended does not move the backing back */
  g.batch_ends(t0);
  EXPECT_EQ(500u, g.limit_in_force(t0 + 100 * STALE + STALE - 1000, true));
  /* a new publication is fresh again */
  g.publish(t0 + 102 * STALE, 700, recorder{&log});
  EXPECT_EQ(700u, g.limit_in_force(t0 + 102 * STALE, true));
}

TEST(Gate, TrackTicketsWithoutLimit)
{
  gate g;
  admission_gate::ticket t;
  g.track_tickets();
  EXPECT_TRUE(g.try_enter(MS, &t));
  EXPECT_TRUE(t.held);
  EXPECT_EQ(1u, g.tickets());
  EXPECT_FALSE(g.leave(t));
  EXPECT_EQ(0u, g.tickets());
  EXPECT_EQ(0u, g.limit_in_force(2 * MS, true));
  /* until the next publication */
  std::vector<const gate_waiter*> log;
  g.publish(3 * MS, 0, 0, recorder{&log});
  g.open(3 * MS, recorder{&log});
  EXPECT_TRUE(g.try_enter(3 * MS, &t));
  EXPECT_FALSE(t.held);
}

TEST(Gate, ConnectionStateIsZeroInitialisable)
{
  /* trx_t is allocated zero-filled and reused */
  connection c;
  std::memset(static_cast<void*>(&c), 0, sizeof c);
  EXPECT_FALSE(c.ticket.held);
  EXPECT_FALSE(c.owes_wait);
  EXPECT_FALSE(c.admitted);
  EXPECT_EQ(nullptr, c.waiter);
  /* a fresh connection passes unless it may write under a limit */
  EXPECT_EQ(point_action::PASS, at_point(c, false, true));
  EXPECT_EQ(point_action::PASS, at_point(c, true, false));
  EXPECT_EQ(point_action::ADMIT, at_point(c, true, true));
}

TEST(Gate, AConnectionPerTransactionIsLetInBeforeItsStatement)
{
  /* connect, one autocommit INSERT under a limit, disconnect: the gate is
  met before the statement, and the commit owes nothing that the
  disconnect would let escape */
  connection c{};
  ASSERT_EQ(point_action::ADMIT, at_point(c, true, true));
  c.admitted= true;                     /* let in under the limit */
  c.ticket.held= true;
  /* the statement's commit gave the ticket back */
  c.ticket.held= false;
  trx_ended(c, true, true);
  EXPECT_FALSE(c.owes_wait);
  EXPECT_FALSE(c.admitted);
  /* its next statement is let in again */
  EXPECT_EQ(point_action::ADMIT, at_point(c, true, true));
}

TEST(Gate, EveryReadWriteTransactionPassesTheGateOnce)
{
  /* let in before: no wait after */
  connection c{};
  c.admitted= true;
  trx_ended(c, true, true);
  EXPECT_FALSE(c.owes_wait);

  /* not let in before (it held a read view or metadata locks when it
  first wrote, or no limit was in force then): it owes a wait after */
  trx_ended(c, true, true);
  EXPECT_TRUE(c.owes_wait);
  /* paid at the next point where it holds nothing, whatever follows */
  EXPECT_EQ(point_action::PAY, at_point(c, false, false));
  EXPECT_EQ(point_action::PAY, at_point(c, true, true));

  /* a read-only or rolled back transaction owes nothing */
  connection r{};
  trx_ended(r, false, true);
  EXPECT_FALSE(r.owes_wait);
  /* nor does any commit without a target */
  trx_ended(r, true, false);
  EXPECT_FALSE(r.owes_wait);
}

TEST(Gate, APaymentLeavesTheAdmissionDue)
{
  /* a connection that owes a wait at a statement that may write while a
  limit is in force: it pays for the transaction that committed (taking no
  ticket), then the statement is let in for its own */
  connection c{};
  c.owes_wait= true;
  ASSERT_EQ(point_action::PAY, at_point(c, true, true));
  c.owes_wait= false;                   /* paid */
  EXPECT_EQ(point_action::ADMIT, at_point(c, true, true));
  /* let in with a ticket: that covers the statement's transaction */
  c.ticket.held= true;
  EXPECT_EQ(point_action::PASS, at_point(c, true, true));
}

TEST(Gate, AStatementThatDoesNotWriteIsNotHeld)
{
  connection c{};
  /* a SELECT, SHOW, SET, CALL (its statements are met one by one) or the
  end of a command passes while the connection owes nothing */
  EXPECT_EQ(point_action::PASS, at_point(c, false, true));
  /* a connection that holds a ticket (let in, its transaction not ended)
  is not let in twice */
  c.ticket.held= true;
  EXPECT_EQ(point_action::PASS, at_point(c, true, true));
  c.ticket.held= false;
  c.admitted= true;
  EXPECT_EQ(point_action::PASS, at_point(c, true, true));
}

/* A ticket and an admission are for the transaction that the statement
let in starts.  InnoDB meets a connection at a point only while its
transaction has not started: a ticket or an admission still held at a
point that starts no transaction (the end of the command, a statement that
does not write) was taken for a statement that started none (it failed
before, or wrote to another engine), and goes back there rather than stay
out while the connection idles, or let a later transaction through. */
TEST(Gate, WhatNoTransactionTookUpGoesBack)
{
  connection c{};
  c.ticket.held= true;
  c.admitted= true;
  EXPECT_EQ(point_action::GIVE_BACK, at_point(c, false, true));
  EXPECT_EQ(point_action::GIVE_BACK, at_point(c, false, false));
  /* a statement that may write takes them up */
  EXPECT_EQ(point_action::PASS, at_point(c, true, true));
  /* an admission by the rate alone, without a ticket */
  c.ticket.held= false;
  EXPECT_EQ(point_action::GIVE_BACK, at_point(c, false, true));
  /* given back, a wait owed is paid next */
  c.owes_wait= true;
  EXPECT_EQ(point_action::GIVE_BACK, at_point(c, false, true));
  c.admitted= false;
  EXPECT_EQ(point_action::PAY, at_point(c, false, true));
}

TEST(Gate, AWaiterWaitsWhileTheQueueMoves)
{
  gate g;
  std::vector<const gate_waiter*> log;
  const uint64_t now= 1000 * MS, MAX= admission_gate::MAX_WAIT;
  limit_to(g, now, 1, log);
  admission_gate::ticket a, b, c;
  ASSERT_TRUE(g.try_enter(now, &a));
  const uint64_t queued= now + 10 * MS;
  ticketed wb{b}, wc{c};
  g.enqueue(queued, wb);
  g.enqueue(queued, wc);
  /* nobody let in since they queued: MAX_WAIT after queueing */
  EXPECT_EQ(queued + MAX, g.give_up_at(queued));
  /* the queue moves: the second waiter waits on from the last admission */
  ASSERT_TRUE(g.leave(a));
  g.admit(now + 150 * MS, recorder{&log});
  ASSERT_TRUE(wb.admitted);
  EXPECT_EQ(now + 150 * MS + MAX, g.give_up_at(queued));
  /* the head waiter looks: a token, but the gate is full */
  EXPECT_EQ(&wc, g.head());
  EXPECT_EQ(0u, g.token_wait(now + 200 * MS));
  g.admit(now + 200 * MS, recorder{&log});
  EXPECT_FALSE(wc.admitted);
  EXPECT_EQ(now + 150 * MS + MAX, g.give_up_at(queued));
  ASSERT_TRUE(g.leave(b));
  g.admit(now + 300 * MS, recorder{&log});
  ASSERT_TRUE(wc.admitted);
  EXPECT_EQ(now + 300 * MS + MAX, g.give_up_at(queued));
  /* a waiter that queues after the last admission waits MAX_WAIT from
  when it queued, however long ago the gate last moved */
  EXPECT_EQ(now + 5000 * MS + MAX, g.give_up_at(now + 5000 * MS));
  EXPECT_FALSE(g.leave(c));
  EXPECT_EQ(0u, g.tickets());
}

/* A gate that lets nobody in for MAX_WAIT (every ticket held by a
transaction that waits for row locks) lets one waiter go per MAX_WAIT, not
the whole queue: a queue let in at once runs outside the gate's bound, on
hot rows past the peak of the throughput, and its lock waits stall the gate
again. */
TEST(Gate, AStallLetsOneWaiterGoAtATime)
{
  gate g;
  std::vector<const gate_waiter*> log;
  unsigned woken= 0;
  const uint64_t now= 1000 * MS, MAX= admission_gate::MAX_WAIT;
  limit_to(g, now, 1, log);
  admission_gate::ticket a, b, c;
  ASSERT_TRUE(g.try_enter(now, &a));
  ticketed wb{b}, wc{c};
  g.enqueue(now, wb);
  g.enqueue(now, wc);
  /* both reach the same time to give up; the first goes */
  EXPECT_EQ(now + MAX, g.give_up_at(now));
  EXPECT_EQ(&wb, g.head());
  g.gave_up(now + MAX);
  g.dequeue(wb, recorder{&log, &woken});
  EXPECT_EQ(1u, woken) << "the next one is first now";
  EXPECT_EQ(&wc, g.head());
  EXPECT_EQ(1u, g.waiting());
  EXPECT_FALSE(b.held) << "gone on without a ticket";
  /* the next one waits MAX_WAIT more */
  EXPECT_EQ(now + 2 * MAX, g.give_up_at(now));
  g.gave_up(now + 2 * MAX);
  g.dequeue(wc, recorder{&log});
  EXPECT_EQ(0u, g.waiting());
  EXPECT_TRUE(log.empty());
  EXPECT_FALSE(g.leave(a));
  EXPECT_EQ(0u, g.tickets());
}

/* A limit that the coordinator stops backing (it is stale, or purge was
stopped) lapses: the waiters see it and open the gate, rather than wait
one MAX_WAIT each. */
TEST(Gate, ALapsedLimitOpensTheGate)
{
  gate g;
  std::vector<const gate_waiter*> log;
  const uint64_t now= 1000 * MS;
  const uint64_t stale= adaptive_controller::STALE * 1000;
  EXPECT_FALSE(g.lapsed(now, true));      /* nothing published */
  limit_to(g, now, 1, log);
  admission_gate::ticket a, b;
  ASSERT_TRUE(g.try_enter(now, &a));
  ticketed wb{b};
  g.enqueue(now, wb);
  EXPECT_FALSE(g.lapsed(now + stale - 1, true));
  /* purge stopped: the limit no longer applies */
  EXPECT_TRUE(g.lapsed(now + MS, false));
  EXPECT_TRUE(g.lapsed(now + stale, true));
  /* a batch that runs backs it whatever its age */
  g.batch_begins();
  EXPECT_FALSE(g.lapsed(now + 10 * stale, true));
  g.batch_ends(now);
  ASSERT_TRUE(g.lapsed(now + stale, true));
  g.open(now + stale, recorder{&log});
  EXPECT_TRUE(wb.admitted);
  EXPECT_EQ(0u, g.waiting());
  EXPECT_FALSE(g.lapsed(now + stale, true));
  g.leave(a);
  g.leave(b);
  EXPECT_EQ(0u, g.tickets());
}

/* The first waiter sleeps until the time at which something it does not
hear of happens: its token accrues, the limit lapses, or it gives up;
room and a new limit wake it instead (admit() wakes the head that
remains). */
TEST(Gate, TheFirstWaiterWakesWhenItsTokenAccrues)
{
  gate g;
  std::vector<const gate_waiter*> log;
  unsigned woken= 0;
  const uint64_t now= 1000 * MS, stale= adaptive_controller::STALE * 1000;
  /* 100 commits a second (a bucket of 5), a bound of 1 */
  g.publish(now, 100, 1, recorder{&log});
  g.batch_ends(now);
  admission_gate::ticket a, b, c;
  ASSERT_TRUE(g.try_enter(now, &a));
  ticketed wb{b};
  g.enqueue(now, wb);
  /* full, with tokens: until the limit would lapse */
  EXPECT_EQ(0u, g.token_wait(now));
  EXPECT_EQ(now + stale, g.wake_at(now, now));
  /* never before now, though the backing may have moved since the caller
  saw the limit in force */
  EXPECT_EQ(now + 2 * stale, g.wake_at(now + 2 * stale, now));
  /* while a batch backs it, until it gives up */
  g.batch_begins();
  EXPECT_EQ(now + admission_gate::MAX_WAIT, g.wake_at(now, now));
  /* room: the head is let in; spend the bucket */
  ASSERT_TRUE(g.leave(a));
  g.admit(now, recorder{&log});
  ASSERT_TRUE(wb.admitted);
  ASSERT_TRUE(g.leave(b) == false);
  for (int i= 0; i < 10 && g.try_enter(now, &c); i++)
    g.leave(c);
  ASSERT_GT(g.token_wait(now), 0u);
  ticketed wc{c};
  EXPECT_FALSE(g.enqueue(now, wc));
  /* no token: until it accrues */
  const uint64_t token= g.token_wait(now);
  EXPECT_EQ(now + token, g.wake_at(now, now));
  /* admit() before it accrues lets nobody in and wakes the head to wait
  on */
  g.admit(now + token / 2, recorder{&log, &woken});
  EXPECT_FALSE(wc.admitted);
  EXPECT_EQ(1u, woken);
  g.admit(now + token, recorder{&log, &woken});
  EXPECT_TRUE(wc.admitted);
  EXPECT_EQ(1u, woken);
  g.leave(c);
  EXPECT_EQ(0u, g.tickets());
}

/* The connections that want in, as the law's bound needs them (want()):
those inside, let in or not, or those let in and those waiting, whichever
is more; a wider bound lets the waiters at the head in at once, a narrower
one lets nobody in until fewer hold a ticket, and no bound is no bound. */
TEST(Gate, WantCountsThoseInsideAndThoseWaiting)
{
  gate g;
  std::vector<const gate_waiter*> log;
  const uint64_t now= 1000 * MS;
  EXPECT_EQ(0u, g.want(0));
  EXPECT_EQ(7u, g.want(7)) << "no limit: those inside";
  g.publish(now, FAST, 1, recorder{&log});
  ASSERT_EQ(1u, g.concurrency());
  admission_gate::ticket first;
  ASSERT_TRUE(g.try_enter(now, &first));
  std::vector<admission_gate::ticket> t(255);
  std::vector<ticketed> w;
  w.reserve(t.size());
  for (auto &x : t)
  {
    EXPECT_FALSE(g.try_enter(now, &x));
    w.emplace_back(x);
    EXPECT_FALSE(g.enqueue(now, w.back()));
  }
  ASSERT_EQ(255u, g.waiting());
  EXPECT_EQ(256u, g.want(1)) << "one inside, 255 waiting";
  EXPECT_EQ(300u, g.want(300)) << "more inside than let in: those inside";
  /* a wider bound: the waiters at the head take its room */
  g.publish(now + MS, FAST, 16, recorder{&log});
  EXPECT_EQ(16u, g.concurrency());
  EXPECT_EQ(15u, log.size());
  EXPECT_EQ(16u, g.tickets());
  EXPECT_EQ(256u, g.want(16)) << "let in or waiting, they still want in";
  /* a narrower one lets nobody in until fewer than it hold a ticket */
  g.publish(now + 2 * MS, FAST, 4, recorder{&log});
  EXPECT_EQ(4u, g.concurrency());
  EXPECT_EQ(15u, log.size());
  EXPECT_TRUE(g.leave(first));
  g.admit(now + 2 * MS, recorder{&log});
  EXPECT_EQ(15u, log.size()) << "15 out, bound 4";
  EXPECT_EQ(15u, g.tickets());
  /* no bound (the law's W is slack): the rate alone, everyone let in */
  g.publish(now + 3 * MS, FAST, 0, recorder{&log});
  EXPECT_EQ(0u, g.concurrency()) << "no bound published";
  EXPECT_EQ(255u, log.size());
  EXPECT_EQ(0u, g.waiting());
  EXPECT_EQ(15u, g.tickets()) << "those let in without a ticket add none";
  EXPECT_EQ(15u, g.want(0));
  EXPECT_EQ(255u, g.want(255)) << "they are among those inside";
  /* a bound without a rate (the law's W outlives its rate): the bound
  alone applies, counting the tickets still out */
  g.publish(now + 4 * MS, 0, 16, recorder{&log});
  EXPECT_EQ(16u, g.concurrency());
  EXPECT_EQ(0u, g.limit_in_force(now + 4 * MS, true));
  EXPECT_TRUE(g.in_force(now + 4 * MS, true));
  admission_gate::ticket late;
  EXPECT_TRUE(g.try_enter(now + 4 * MS, &late));
  EXPECT_TRUE(late.held);
  EXPECT_FALSE(g.try_enter(now + 4 * MS, &late)) << "16 out, bound 16";
  for (auto &x : t)
    g.leave(x);
  EXPECT_EQ(1u, g.tickets());
  g.leave(late);
  EXPECT_EQ(0u, g.tickets());
  /* neither: the gate opens */
  g.publish(now + 6 * MS, 0, 0, recorder{&log});
  EXPECT_FALSE(g.in_force(now + 6 * MS, true));
  EXPECT_EQ(0u, g.concurrency());
}

TEST(Gate, ATokenLetsTheHeadIn)
{
  gate g;
  std::vector<const gate_waiter*> log;
  const uint64_t now= 1000 * MS;
  /* 100 commits a second (a bucket of 5), a bound of 10 */
  g.publish(now, 100, 10, recorder{&log});
  ASSERT_EQ(10u, g.concurrency());
  admission_gate::ticket t[5], a, b;
  for (auto &x : t)
    ASSERT_TRUE(g.try_enter(now, &x));
  EXPECT_EQ(5u, g.tickets());
  /* room inside, but no token */
  EXPECT_FALSE(g.try_enter(now, &a));
  EXPECT_FALSE(a.held);
  EXPECT_TRUE(g.rate_bound());
  ticketed w{a};
  EXPECT_FALSE(g.enqueue(now, w));
  const uint64_t wait= g.token_wait(now);
  EXPECT_GT(wait, 0u);
  EXPECT_LE(wait, 1000000000 / 100 + 1) << "one token's time";
  /* nothing is let in before the token accrues */
  g.admit(now + wait / 2, recorder{&log});
  EXPECT_TRUE(log.empty());
  EXPECT_FALSE(w.admitted);
  EXPECT_EQ(&w, g.head());
  /* and a newcomer does not overtake the waiter */
  EXPECT_FALSE(g.try_enter(now + wait, &b));
  /* once it accrued, the head waiter's look lets it in */
  g.admit(now + wait, recorder{&log});
  ASSERT_EQ(1u, log.size());
  EXPECT_EQ(&w, log[0]);
  EXPECT_TRUE(w.admitted);
  EXPECT_TRUE(a.held);
  EXPECT_EQ(nullptr, g.head());
  EXPECT_EQ(0u, g.waiting());
  EXPECT_EQ(6u, g.tickets());
  EXPECT_GE(g.give_up_at(now), now + wait + admission_gate::MAX_WAIT)
    << "an admission moves the queue";
  for (auto &x : t)
    g.leave(x);
  g.leave(a);
  EXPECT_EQ(0u, g.tickets());
}

/* A wait owed is paid in the queue like an admission, and takes no
ticket. */
TEST(Gate, APaymentWaitsItsTurnAndTakesNoTicket)
{
  gate g;
  std::vector<const gate_waiter*> log;
  const uint64_t now= 1000 * MS;
  limit_to(g, now, 1, log);
  admission_gate::ticket a, b;
  ASSERT_TRUE(g.try_enter(now, &a));
  EXPECT_FALSE(g.try_enter(now, nullptr)) << "no room";
  gate_waiter pay;
  EXPECT_FALSE(g.enqueue(now, pay));
  ticketed wb{b};
  EXPECT_FALSE(g.enqueue(now, wb));
  ASSERT_TRUE(g.leave(a));
  g.admit(now, recorder{&log});
  ASSERT_EQ(2u, log.size()) << "the payment took no room";
  EXPECT_EQ(&pay, log[0]);
  EXPECT_EQ(&wb, log[1]);
  EXPECT_EQ(1u, g.tickets());
  g.leave(b);
  EXPECT_EQ(0u, g.tickets());
}

namespace
{
/** nanoseconds of a monotonic clock, never 0 */
uint64_t clock_ns()
{
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>
                  (std::chrono::steady_clock::now().time_since_epoch())
                  .count()) + 1;
}

/** A thread's waiter, as srv0purgelab_adaptive.cc keeps one: constructed
once per thread, with its own condition, waited for with the gate's latch */
struct thread_waiter : gate_waiter
{
  std::condition_variable cond;
};
thread_local thread_waiter my_waiter;

void wake(gate_waiter &w) { static_cast<thread_waiter&>(w).cond.notify_one(); }

/** The server's protocol (purge_throttle_sys_t::admit(), ::leave()) with
std::mutex: no latch while nobody waits and there is room and a token;
else queue, the first waiter sleeping until wake_at().  Nobody gives up
here (the bound is never exceeded) and the limit is backed by a batch. */
struct harness
{
  gate g;
  std::mutex latch;
  std::atomic<unsigned> queued{0};

  void enter(admission_gate::ticket &t)
  {
    if (g.try_enter(clock_ns(), &t))
      return;
    thread_waiter &w= my_waiter;
    w.ticket= &t;
    std::unique_lock<std::mutex> l(latch);
    if (g.enqueue(clock_ns(), w))
      return;
    queued++;
    while (!w.admitted)
    {
      const uint64_t now= clock_ns();
      if (g.head() == &w)
      {
        g.admit(now, wake);
        if (w.admitted)
          break;
        const uint64_t until= g.wake_at(now, now);
        w.cond.wait_for(l, std::chrono::nanoseconds(until - now));
      }
      else
        w.cond.wait(l);
    }
    g.dequeue(w, wake);
  }

  void leave(admission_gate::ticket &t)
  {
    if (g.leave(t))
    {
      std::lock_guard<std::mutex> l(latch);
      g.admit(clock_ns(), wake);
    }
  }
};
}

/* Threads enter and leave at once under a bound: the transactions inside
never exceed it, every one is let in, and the count is back at 0. */
TEST(GateThreads, TheBoundIsNeverExceededAndEveryTicketComesBack)
{
  constexpr unsigned THREADS= 8, ROUNDS= 20000, BOUND= 3;
  harness h;
  h.g.publish(clock_ns(), FAST * 1000, BOUND, wake);
  h.g.batch_begins();
  std::atomic<unsigned> inside{0}, most{0};
  std::atomic<uint64_t> done{0};
  std::vector<std::thread> threads;
  for (unsigned i= 0; i < THREADS; i++)
    threads.emplace_back([&]()
    {
      for (unsigned r= 0; r < ROUNDS; r++)
      {
        admission_gate::ticket t;
        h.enter(t);
        EXPECT_TRUE(t.held);
        const unsigned n= ++inside;
        unsigned m= most.load();
        while (n > m && !most.compare_exchange_weak(m, n)) {}
        EXPECT_LE(h.g.tickets(), BOUND);
        if (r % 16 == 0)
          std::this_thread::yield();
        inside--;
        h.leave(t);
        EXPECT_FALSE(t.held);
        done++;
      }
    });
  for (auto &t : threads)
    t.join();
  RecordProperty("queued", int(h.queued.load()));
  EXPECT_EQ(uint64_t{THREADS} * ROUNDS, done.load());
  EXPECT_LE(most.load(), BOUND);
  EXPECT_EQ(0u, h.g.tickets());
  EXPECT_EQ(0u, h.g.waiting());
  EXPECT_EQ(nullptr, h.g.head());
}

/* The bound moves while threads enter and leave: the count exceeds the
bound in force only by tickets let in under a wider one (never the widest
published), and comes back to 0. */
TEST(GateThreads, AMovingBoundKeepsTheCountExact)
{
  constexpr unsigned THREADS= 6, ROUNDS= 10000, WIDEST= 4;
  harness h;
  h.g.publish(clock_ns(), FAST * 1000, WIDEST, wake);
  h.g.batch_begins();
  std::atomic<bool> stop{false};
  std::atomic<unsigned> inside{0};
  std::thread coordinator([&]()
  {
    for (unsigned k= 0; !stop; k++)
    {
      {
        std::lock_guard<std::mutex> l(h.latch);
        h.g.publish(clock_ns(), FAST * 1000, 1 + k % WIDEST, wake);
        h.g.batch_begins();
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  std::vector<std::thread> threads;
  for (unsigned i= 0; i < THREADS; i++)
    threads.emplace_back([&]()
    {
      for (unsigned r= 0; r < ROUNDS; r++)
      {
        admission_gate::ticket t;
        h.enter(t);
        EXPECT_LE(++inside, WIDEST);
        EXPECT_LE(h.g.tickets(), WIDEST);
        inside--;
        h.leave(t);
      }
    });
  for (auto &t : threads)
    t.join();
  stop= true;
  coordinator.join();
  EXPECT_EQ(0u, h.g.tickets());
  EXPECT_EQ(0u, h.g.waiting());
}

/* Under a rate alone, threads that enter without the latch are let in at
most at the rate, plus the bucket: one compare-and-swap per admission. */
TEST(GateThreads, TheRateHoldsWithoutALatch)
{
  constexpr unsigned THREADS= 4;
  constexpr uint64_t RATE= 20000;
  gate g;
  const uint64_t start= clock_ns();
  g.publish(start, RATE, 0, wake);
  std::atomic<uint64_t> admitted{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (unsigned i= 0; i < THREADS; i++)
    threads.emplace_back([&]()
    {
      admission_gate::ticket t;
      while (!stop)
        if (g.try_enter(clock_ns(), &t))
        {
          EXPECT_FALSE(t.held) << "a rate alone takes no ticket";
          admitted++;
        }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  stop= true;
  for (auto &t : threads)
    t.join();
  const double seconds= double(clock_ns() - start) * 1e-9;
  const double bucket= double(RATE) * double(admission_gate::WINDOW) * 1e-9;
  EXPECT_LE(double(admitted.load()), double(RATE) * seconds + bucket + 1);
  EXPECT_GE(double(admitted.load()), double(RATE) * 0.1)
    << "tokens are handed out";
  EXPECT_TRUE(g.rate_bound());
  EXPECT_EQ(0u, g.tickets());
}

TEST(GateBatch, OnlyARunningBatchIsClaimedAndOnlyOnce)
{
  gate g;
  EXPECT_FALSE(g.claim_batch()) << "no batch runs";
  g.batch_begins();
  ASSERT_TRUE(g.claim_batch());
  EXPECT_FALSE(g.claim_batch()) << "an evaluation within the batch runs";
  g.release_batch();
  ASSERT_TRUE(g.claim_batch()) << "again, POLL_MAX later";
  g.release_batch();
  unsigned yields= 0;
  g.batch_ends(0, [&]{ yields++; });
  EXPECT_EQ(0u, yields) << "nothing to wait for";
  EXPECT_FALSE(g.claim_batch()) << "the batch ended";
  g.batch_ends(0, [&]{ yields++; });
  EXPECT_EQ(0u, yields) << "batch_ends() without a batch (an empty history)";
  EXPECT_FALSE(g.claim_batch());
}

TEST(GateBatchThreads, TheCoordinatorWaitsForAnEvaluationWithinTheBatch)
{
  for (int round= 0; round < 50; round++)
  {
    gate g;
    g.batch_begins();
    std::atomic<bool> claimed{false}, evaluated{false};
    std::thread timer([&]{
      if (!g.claim_batch())
        return;
      claimed= true;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      evaluated= true;
      g.release_batch();
    });
    /* the coordinator ends the batch while the timer may be evaluating */
    while (round % 2 && !claimed)
      std::this_thread::yield();
    g.batch_ends(0, []{ std::this_thread::yield(); });
    const bool was_claimed= claimed, done= evaluated;
    EXPECT_EQ(was_claimed, done)
      << "batch_ends() returned while an evaluation within the batch ran";
    EXPECT_FALSE(g.claim_batch()) << "nothing is claimed after batch_ends()";
    timer.join();
    EXPECT_EQ(claimed.load(), evaluated.load());
    EXPECT_FALSE(g.claim_batch());
  }
}
