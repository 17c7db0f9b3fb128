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

/* Unit tests of the adaptive throttle's gate (trx0gate.h): the queue, the
lease, the staleness of a published limit and the switch that opens the
gate, with an injected clock (nanoseconds). */

#include "trx0gate.h"
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

using namespace purge_throttle;

namespace
{
constexpr uint64_t MS= 1000000;

/** records the waiters let in, in order */
struct recorder
{
  std::vector<const gate_waiter*> *log;
  void operator()(gate_waiter &w) const { log->push_back(&w); }
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
  EXPECT_TRUE(g.try_enter(1, t));
  EXPECT_EQ(0u, t.since);
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
  EXPECT_TRUE(g.try_enter(now, a));
  EXPECT_TRUE(g.try_enter(now, b));
  EXPECT_EQ(2u, g.tickets());
  EXPECT_FALSE(g.try_enter(now, c));
  gate_waiter wc(c), wd(d);
  g.enqueue(wc);
  g.enqueue(wd);
  EXPECT_EQ(2u, g.waiting());
  /* one slot freed: the first waiter is let in, with a ticket */
  now+= MS;
  g.leave(now, a, recorder{&log});
  ASSERT_EQ(1u, log.size());
  EXPECT_EQ(&wc, log[0]);
  EXPECT_TRUE(wc.admitted);
  EXPECT_NE(0u, c.since);
  EXPECT_FALSE(wd.admitted);
  EXPECT_EQ(1u, g.waiting());
  EXPECT_EQ(&wd, g.head());
  EXPECT_EQ(0u, a.since);
  EXPECT_EQ(2u, g.tickets());
  /* everyone gives back: no ticket is left out */
  g.leave(now, b, recorder{&log});
  EXPECT_TRUE(wd.admitted);
  g.leave(now, c, recorder{&log});
  g.leave(now, d, recorder{&log});
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
  g.try_enter(now, a);
  g.try_enter(now, b);
  gate_waiter wc(c);
  g.enqueue(wc);
  /* a slot is free again only through leave(), which lets the waiter in;
  a connection arriving meanwhile queues behind */
  EXPECT_FALSE(g.try_enter(now, e));
  EXPECT_EQ(0u, e.since);
}

TEST(Gate, GivingUpLeavesTheQueueConsistent)
{
  gate g;
  std::vector<const gate_waiter*> log;
  uint64_t now= 1000 * MS;
  limit_to(g, now, 2, log);
  admission_gate::ticket a, b, t1, t2, t3;
  g.try_enter(now, a);
  g.try_enter(now, b);
  gate_waiter w1(t1), w2(t2), w3(t3);
  g.enqueue(w1);
  g.enqueue(w2);
  g.enqueue(w3);
  g.dequeue(w2);                        /* timed out or killed */
  EXPECT_EQ(2u, g.waiting());
  g.leave(now, a, recorder{&log});
  g.leave(now, b, recorder{&log});
  ASSERT_EQ(2u, log.size());
  EXPECT_EQ(&w1, log[0]);
  EXPECT_EQ(&w3, log[1]);
  EXPECT_FALSE(w2.admitted);
  EXPECT_EQ(nullptr, g.head());
  EXPECT_EQ(0u, g.waiting());
  /* dequeue() of an admitted waiter is a no-op */
  g.dequeue(w1);
  EXPECT_EQ(0u, g.waiting());
}

TEST(Gate, OpenLetsEveryWaiterInAtOnce)
{
  gate g;
  std::vector<const gate_waiter*> log;
  uint64_t now= 1000 * MS;
  limit_to(g, now, 2, log);
  admission_gate::ticket a, b;
  g.try_enter(now, a);
  g.try_enter(now, b);
  std::vector<admission_gate::ticket> t(10);
  std::vector<gate_waiter*> w;
  for (auto &ti : t)
  {
    w.push_back(new gate_waiter(ti));
    g.enqueue(*w.back());
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
    EXPECT_EQ(0u, t[i].since);          /* let in without a slot */
    delete w[i];
  }
  /* the tickets that were out stay valid and are given back as usual */
  EXPECT_EQ(2u, g.tickets());
  g.leave(now, a, recorder{&log});
  g.leave(now, b, recorder{&log});
  EXPECT_EQ(0u, g.tickets());
}

TEST(Gate, ZeroLimitAfterALimitLetsWaitersIn)
{
  gate g;
  std::vector<const gate_waiter*> log;
  uint64_t now= 1000 * MS;
  limit_to(g, now, 2, log);
  admission_gate::ticket a, b, c;
  g.try_enter(now, a);
  g.try_enter(now, b);
  gate_waiter wc(c);
  g.enqueue(wc);
  g.publish(now + MS, 0, recorder{&log});   /* the history emptied */
  EXPECT_TRUE(wc.admitted);
  EXPECT_EQ(0u, g.waiting());
}

TEST(Gate, ZeroLimitWithoutOneDoesNotReleaseForcedWaiters)
{
  /* mtr's purge_throttle_must_wait queues without a limit; only open()
  (a mode change), KILL or the wait's bound let it go */
  gate g;
  std::vector<const gate_waiter*> log;
  admission_gate::ticket c;
  gate_waiter wc(c);
  g.enqueue(wc);
  g.publish(5 * MS, 0, recorder{&log});
  EXPECT_FALSE(wc.admitted);
  g.open(6 * MS, recorder{&log});
  EXPECT_TRUE(wc.admitted);
}

TEST(Gate, ExpiredTicketsLetWaitersIn)
{
  gate g;
  std::vector<const gate_waiter*> log;
  uint64_t now= 1000 * MS;
  limit_to(g, now, 2, log);
  admission_gate::ticket a, b, c;
  g.try_enter(now, a);
  g.try_enter(now, b);
  gate_waiter wc(c);
  g.enqueue(wc);
  now+= admission_gate::LEASE + 2 * MS;     /* a and b went idle */
  g.publish(now, FAST, recorder{&log});
  EXPECT_TRUE(wc.admitted);
  EXPECT_NE(0u, c.since);
  /* an expired ticket given back late frees nothing */
  g.leave(now, a, recorder{&log});
  EXPECT_EQ(0u, a.since);
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
  g.track_tickets(MS);
  EXPECT_TRUE(g.try_enter(MS, t));
  EXPECT_NE(0u, t.since);
  EXPECT_EQ(1u, g.tickets());
  std::vector<const gate_waiter*> log;
  g.leave(2 * MS, t, recorder{&log});
  EXPECT_EQ(0u, g.tickets());
  EXPECT_EQ(0u, g.limit_in_force(2 * MS, true));
}

TEST(Gate, ConnectionStateIsZeroInitialisable)
{
  /* trx_t is allocated zero-filled and reused */
  connection c;
  std::memset(static_cast<void*>(&c), 0, sizeof c);
  EXPECT_EQ(0u, c.ticket.since);
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
  c.ticket.since= 1;
  /* the statement's commit gave the ticket back */
  c.ticket.since= 0;
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

TEST(Gate, APaymentWithoutATicketLeavesTheAdmissionDue)
{
  /* a connection that owes a wait (its commit came while no limit was in
  force, or while its path was exempt) at a statement that may write while
  a limit is in force: it pays first; if that brought no ticket (no limit
  then), the statement is let in on its own */
  connection c{};
  c.owes_wait= true;
  ASSERT_EQ(point_action::PAY, at_point(c, true, true));
  c.owes_wait= false;                   /* paid, without a ticket */
  EXPECT_EQ(point_action::ADMIT, at_point(c, true, true));
  /* paid with a ticket: that covers the statement's transaction */
  c.ticket.since= 7;
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
  c.ticket.since= 5;
  EXPECT_EQ(point_action::PASS, at_point(c, true, true));
  c.ticket.since= 0;
  c.admitted= true;
  EXPECT_EQ(point_action::PASS, at_point(c, true, true));
}

TEST(Gate, AWaiterWaitsWhileTheQueueMoves)
{
  gate g;
  std::vector<const gate_waiter*> log;
  const uint64_t now= 1000 * MS, MAX= admission_gate::MAX_WAIT;
  limit_to(g, now, 1, log);
  admission_gate::ticket a, b, c;
  ASSERT_TRUE(g.try_enter(now, a));
  const uint64_t queued= now + 10 * MS;
  gate_waiter wb{b}, wc{c};
  g.enqueue(wb);
  g.enqueue(wc);
  /* nobody let in since they queued: MAX_WAIT after queueing */
  EXPECT_EQ(queued + MAX, g.give_up_at(queued));
  /* the queue moves (tickets held under LEASE): the second waiter waits on
  from the last admission */
  g.leave(now + 150 * MS, a, recorder{&log});
  ASSERT_TRUE(wb.admitted);
  EXPECT_EQ(now + 150 * MS + MAX, g.give_up_at(queued));
  /* the head waiter polls: a token, but the gate is full */
  EXPECT_EQ(&wc, g.head());
  EXPECT_EQ(0u, g.token_wait(now + 200 * MS));
  g.poll(now + 200 * MS, recorder{&log});
  EXPECT_FALSE(wc.admitted);
  EXPECT_EQ(now + 150 * MS + MAX, g.give_up_at(queued));
  g.leave(now + 300 * MS, b, recorder{&log});
  ASSERT_TRUE(wc.admitted);
  EXPECT_EQ(now + 300 * MS + MAX, g.give_up_at(queued));
  /* a waiter that queues after the last admission waits MAX_WAIT from
  when it queued, however long ago the gate last moved */
  EXPECT_EQ(now + 5000 * MS + MAX, g.give_up_at(now + 5000 * MS));
  g.leave(now + 400 * MS, c, recorder{&log});
  EXPECT_EQ(0u, g.tickets());
}

/* A gate that lets nobody in for MAX_WAIT (every slot held by a
transaction that waits for row locks) lets one waiter go per MAX_WAIT, not
the whole queue: a queue let in at once runs outside the gate's bound, on
hot rows past the peak of the throughput, and its lock waits stall the gate
again. */
TEST(Gate, AStallLetsOneWaiterGoAtATime)
{
  gate g;
  std::vector<const gate_waiter*> log;
  const uint64_t now= 1000 * MS, MAX= admission_gate::MAX_WAIT;
  limit_to(g, now, 1, log);
  admission_gate::ticket a, b, c;
  ASSERT_TRUE(g.try_enter(now, a));
  gate_waiter wb{b}, wc{c};
  g.enqueue(wb);
  g.enqueue(wc);
  /* both reach the same time to give up; the first goes */
  EXPECT_EQ(now + MAX, g.give_up_at(now));
  EXPECT_EQ(&wb, g.head());
  g.gave_up(now + MAX);
  g.dequeue(wb);
  EXPECT_EQ(&wc, g.head());
  EXPECT_EQ(1u, g.waiting());
  /* the next one waits MAX_WAIT more */
  EXPECT_EQ(now + 2 * MAX, g.give_up_at(now));
  g.gave_up(now + 2 * MAX);
  g.dequeue(wc);
  EXPECT_EQ(0u, g.waiting());
  EXPECT_TRUE(log.empty());
  g.leave(now + 2 * MAX, a, recorder{&log});
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
  ASSERT_TRUE(g.try_enter(now, a));
  gate_waiter wb{b};
  g.enqueue(wb);
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
  g.leave(now + stale, a, recorder{&log});
  g.leave(now + stale, b, recorder{&log});
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
  ASSERT_TRUE(g.try_enter(now, first));
  std::vector<admission_gate::ticket> t(255);
  std::vector<gate_waiter> w;
  w.reserve(t.size());
  for (auto &x : t)
  {
    EXPECT_FALSE(g.try_enter(now, x));
    w.emplace_back(x);
    g.enqueue(w.back());
  }
  ASSERT_EQ(255u, g.waiting());
  EXPECT_EQ(256u, g.want(1)) << "one inside, 255 waiting";
  EXPECT_EQ(300u, g.want(300)) << "more inside than let in: those inside";
  /* a wider bound: the waiters at the head take its new slots */
  g.publish(now + MS, FAST, 16, recorder{&log});
  EXPECT_EQ(16u, g.concurrency());
  EXPECT_EQ(15u, log.size());
  EXPECT_EQ(16u, g.tickets());
  EXPECT_EQ(256u, g.want(16)) << "let in or waiting, they still want in";
  /* a narrower one lets nobody in until fewer than it hold a ticket */
  g.publish(now + 2 * MS, FAST, 4, recorder{&log});
  EXPECT_EQ(4u, g.concurrency());
  EXPECT_EQ(15u, log.size());
  g.leave(now + 2 * MS, first, recorder{&log});
  EXPECT_EQ(15u, log.size()) << "15 out, bound 4";
  /* no bound (the law's W is slack): the rate alone, everyone let in */
  g.publish(now + 3 * MS, FAST, 0, recorder{&log});
  EXPECT_EQ(0u, g.concurrency()) << "no bound published";
  EXPECT_EQ(255u, log.size());
  EXPECT_EQ(0u, g.waiting());
  EXPECT_EQ(255u, g.want(0));
  /* a bound without a rate (the law's W outlives its rate): the bound
  alone applies */
  g.publish(now + 4 * MS, 0, 16, recorder{&log});
  EXPECT_EQ(16u, g.concurrency());
  EXPECT_EQ(0u, g.limit_in_force(now + 4 * MS, true));
  EXPECT_TRUE(g.in_force(now + 4 * MS, true));
  admission_gate::ticket late;
  const unsigned out= g.tickets();
  ASSERT_GE(out, 16u);
  EXPECT_FALSE(g.try_enter(now + 4 * MS, late)) << out << " out, bound 16";
  for (auto &x : t)
    g.leave(now + 5 * MS, x, recorder{&log});
  EXPECT_EQ(0u, g.tickets());
  EXPECT_TRUE(g.try_enter(now + 5 * MS, late));
  EXPECT_NE(0u, late.since) << "let in with a ticket";
  g.leave(now + 5 * MS, late, recorder{&log});
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
    ASSERT_TRUE(g.try_enter(now, x));
  EXPECT_EQ(5u, g.tickets());
  /* room inside, but no token */
  EXPECT_FALSE(g.try_enter(now, a));
  EXPECT_EQ(0u, a.since);
  gate_waiter w{a};
  g.enqueue(w);
  const uint64_t wait= g.token_wait(now);
  EXPECT_GT(wait, 0u);
  EXPECT_LE(wait, 1000000000 / 100 + 1) << "one token's time";
  /* nothing is let in before the token accrues */
  g.poll(now + wait / 2, recorder{&log});
  EXPECT_TRUE(log.empty());
  EXPECT_FALSE(w.admitted);
  EXPECT_EQ(&w, g.head());
  /* and a newcomer does not overtake the waiter */
  EXPECT_FALSE(g.try_enter(now + wait, b));
  /* once it accrued, the head waiter's poll lets it in */
  g.poll(now + wait, recorder{&log});
  ASSERT_EQ(1u, log.size());
  EXPECT_EQ(&w, log[0]);
  EXPECT_TRUE(w.admitted);
  EXPECT_NE(0u, a.since);
  EXPECT_EQ(nullptr, g.head());
  EXPECT_EQ(0u, g.waiting());
  EXPECT_EQ(6u, g.tickets());
  EXPECT_GE(g.give_up_at(now), now + wait + admission_gate::MAX_WAIT)
    << "an admission moves the queue";
}
