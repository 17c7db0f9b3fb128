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


/* Unit tests of the purge lag throttle's decisions (trx0throttle.h) */

#include "trx0throttle.h"
#include <gtest/gtest.h>

using namespace purge_throttle;

TEST(FormulaDelay, NoDelayAtOrBelowTheLag)
{
  EXPECT_EQ(0u, formula_delay(0, 10000, 5000));
  EXPECT_EQ(0u, formula_delay(10000, 10000, 5000));
}

TEST(FormulaDelay, DisabledByZeroLagOrZeroCap)
{
  EXPECT_EQ(0u, formula_delay(1000000, 0, 5000));
  EXPECT_EQ(0u, formula_delay(1000000, 10000, 0));
}

TEST(FormulaDelay, GrowsWithHistoryFromFiveMilliseconds)
{
  /* 10000 * history / lag - 5000 */
  EXPECT_EQ(5001u, formula_delay(10001, 10000, 1000000));
  EXPECT_EQ(15000u, formula_delay(20000, 10000, 1000000));
  EXPECT_EQ(95000u, formula_delay(100000, 10000, 1000000));
}

TEST(FormulaDelay, CappedByMaxDelay)
{
  EXPECT_EQ(5000u, formula_delay(20000, 10000, 5000));
  EXPECT_EQ(5000u, formula_delay(10001, 10000, 5000));
  /* no overflow for a huge history */
  EXPECT_EQ(7u, formula_delay(uint64_t{1} << 40, 1, 7));
}

TEST(BatchDelay, CoupledDoesNotDelayWhenPurgeCannotProgress)
{
  EXPECT_EQ(0u, batch_delay(true, 0, 50000, 10000, 5000));
  EXPECT_EQ(5000u, batch_delay(true, 3, 50000, 10000, 5000));
}

TEST(BatchDelay, UncoupledDelaysWheneverHistoryExceedsLag)
{
  EXPECT_EQ(5000u, batch_delay(false, 0, 50000, 10000, 5000));
  EXPECT_EQ(5000u, batch_delay(false, 3, 50000, 10000, 5000));
  EXPECT_EQ(0u, batch_delay(false, 0, 9000, 10000, 5000));
}

TEST(Coupling, DelayedDmlWakesPurgeOnlyWhenCoupled)
{
  EXPECT_TRUE(dml_wakes_purge(true));
  EXPECT_FALSE(dml_wakes_purge(false));
}

TEST(Coupling, CoordinatorStaysWhileThrottlingOnlyWhenCoupled)
{
  EXPECT_TRUE(coordinator_continues(true, 5, false));
  EXPECT_TRUE(coordinator_continues(false, 5, false));
  EXPECT_FALSE(coordinator_continues(true, 0, false));
  EXPECT_TRUE(coordinator_continues(true, 0, true));
  EXPECT_FALSE(coordinator_continues(false, 0, true));
}

TEST(Coupling, CoupledTermReachableWhenABatchFoundNothing)
{
  /* The term must not depend on the delay published after the batch: coupled,
  that is 0 whenever the batch found nothing, so the term could never hold.
  What counts is whether DML is throttled (history over the lag). */
  const uint64_t histories[]= {50000, 5000000};
  for (uint64_t history : histories)
  {
    EXPECT_EQ(0u, batch_delay(true, 0, history, 10000, 5000));
    const bool throttling= formula_delay(history, 10000, 5000) != 0;
    EXPECT_TRUE(coordinator_continues(true, 0, throttling));
    EXPECT_FALSE(coordinator_continues(false, 0, throttling));
  }
  EXPECT_FALSE(coordinator_continues(true, 0,
                                     formula_delay(9000, 10000, 5000) != 0));
}

TEST(Coupling, CoordinatorBacksOffWhileBatchesFindNothing)
{
  EXPECT_EQ(POLL_MIN, poll_interval(0));
  EXPECT_EQ(POLL_MIN, poll_interval(1));
  uint64_t last= POLL_MIN;
  for (unsigned n= 2; n < 100; n++)
  {
    EXPECT_GE(poll_interval(n), last);
    EXPECT_LE(poll_interval(n), POLL_MAX);
    last= poll_interval(n);
  }
  EXPECT_EQ(POLL_MAX, poll_interval(5));
  EXPECT_EQ(POLL_MAX, poll_interval(~0u));
  /* wake-ups in 10 s of an old read view: 1e6 / POLL_MAX a second after
  the first few */
  uint64_t total= 0;
  unsigned wakeups= 0;
  for (unsigned n= 1; total < 10000000; n++, wakeups++)
    total+= poll_interval(n);
  EXPECT_LE(wakeups, 10000000 / POLL_MAX + 4);
}
