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


/* Unit tests of when the adaptive throttle is armed (trx0arm.h): the
server's count of armed engines never drifts, a commit may owe a wait only
with a target and a limit published, and the one branch at the end of a
transaction skips only ends at which trx_ended() would change nothing. */

#include "trx0arm.h"
#include <gtest/gtest.h>

using namespace purge_throttle;

TEST(Arming, TargetOnlyAdaptiveWithALag)
{
  EXPECT_TRUE(has_target(true, 1));
  EXPECT_TRUE(has_target(true, ~uint64_t{0}));
  EXPECT_FALSE(has_target(true, 0));
  EXPECT_FALSE(has_target(false, 1000000));
  EXPECT_FALSE(has_target(false, 0));
}

TEST(Arming, EachChangeReportedOnce)
{
  arming a;
  EXPECT_FALSE(a.armed());
  /* a startup without a target, then settings written again and again */
  EXPECT_FALSE(a.set(false));
  EXPECT_TRUE(a.set(true));
  EXPECT_TRUE(a.armed());
  EXPECT_FALSE(a.set(true));
  EXPECT_TRUE(a.set(false));
  EXPECT_FALSE(a.armed());
  EXPECT_FALSE(a.set(false));
}

TEST(Arming, TheServersCountNeverDrifts)
{
  /* the settings as SET GLOBAL writes them, in any order: mode and lag */
  struct setting { bool adaptive; uint64_t lag; };
  const setting writes[]= {
    {true, 0}, {true, 0}, {true, 1000}, {true, 2000}, {false, 2000},
    {false, 0}, {true, 0}, {true, 5}, {true, 5}, {false, 5}, {true, 5},
    {true, 0}};
  arming a;
  int count= 0;
  for (const setting &w : writes)
  {
    const bool target= has_target(w.adaptive, w.lag);
    if (a.set(target))
      count+= target ? 1 : -1;
    ASSERT_EQ(target ? 1 : 0, count);
    ASSERT_EQ(target, a.armed());
  }
  /* shutdown disarms */
  if (a.set(false))
    count--;
  EXPECT_EQ(0, count);
}

TEST(Arming, LimitedOnlyWithATargetAndAPublishedLimit)
{
  arming a;
  EXPECT_FALSE(a.limited());
  /* a limit published (or left published) without a target owes nothing */
  a.publish(true);
  EXPECT_FALSE(a.limited());
  EXPECT_FALSE(a.armed());
  EXPECT_TRUE(a.set(true));
  EXPECT_TRUE(a.limited());
  /* the limit is withdrawn: armed, the wait point still called, but a
  commit owes nothing */
  a.publish(false);
  EXPECT_TRUE(a.armed());
  EXPECT_FALSE(a.limited());
  a.publish(true);
  EXPECT_TRUE(a.limited());
  /* the two bits are independent: disarming keeps the limit's bit, and
  changes of the limit are no changes of the arming */
  EXPECT_TRUE(a.set(false));
  EXPECT_FALSE(a.limited());
  EXPECT_FALSE(a.set(false));
  a.publish(false);
  EXPECT_FALSE(a.set(false));
  EXPECT_TRUE(a.set(true));
  EXPECT_FALSE(a.limited());
}

namespace
{
/** every connection state that the gate's fields can take */
connection state(bool ticket, bool admitted, bool owes)
{
  connection c{};
  c.ticket.held= ticket;
  c.admitted= admitted;
  c.owes_wait= owes;
  return c;
}

bool same(const connection &a, const connection &b)
{
  return a.ticket.held == b.ticket.held &&
    a.admitted == b.admitted && a.owes_wait == b.owes_wait &&
    a.waiter == b.waiter;
}
}

TEST(TrxEnd, SkippedOnlyWhereNothingWouldChange)
{
  for (int bits= 0; bits < 8; bits++)
    for (bool wrote_commit : {false, true})
    {
      const connection before= state(bits & 1, bits & 2, bits & 4);
      if (trx_end_acts(before, false))
        continue;
      /* no limit published, so the end runs with throttling == false */
      connection after= before;
      trx_ended(after, wrote_commit, false);
      EXPECT_TRUE(same(before, after)) << "state " << bits;
    }
}

TEST(TrxEnd, ATicketOrAnAdmissionAlwaysGoesOutOfLine)
{
  /* a ticket must go back, an admission must be cleared, with a target
  or without */
  for (bool limited : {false, true})
  {
    EXPECT_TRUE(trx_end_acts(state(true, false, false), limited));
    EXPECT_TRUE(trx_end_acts(state(false, true, false), limited));
    EXPECT_TRUE(trx_end_acts(state(true, true, true), limited));
  }
  EXPECT_FALSE(trx_end_acts(state(false, false, false), false));
  /* a wait owed from before the limit went stays owed, as trx_ended()
  keeps it: the next point pays it, finding no limit in force */
  EXPECT_FALSE(trx_end_acts(state(false, false, true), false));
}

TEST(TrxEnd, LimitedEveryCommitThatOwesIsSeen)
{
  /* with a limit published every end goes out of line, so a commit that
  the gate did not let in owes its wait */
  for (int bits= 0; bits < 8; bits++)
  {
    const connection before= state(bits & 1, bits & 2, bits & 4);
    ASSERT_TRUE(trx_end_acts(before, true));
    connection after= before;
    trx_ended(after, true, true);
    EXPECT_EQ(!before.admitted || before.owes_wait, after.owes_wait);
    EXPECT_FALSE(after.admitted);
  }
}
