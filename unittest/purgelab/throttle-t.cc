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
  EXPECT_TRUE(coordinator_continues(true, 5, 0));
  EXPECT_TRUE(coordinator_continues(false, 5, 0));
  EXPECT_FALSE(coordinator_continues(true, 0, 0));
  EXPECT_TRUE(coordinator_continues(true, 0, 5000));
  EXPECT_FALSE(coordinator_continues(false, 0, 5000));
}

TEST(Coupling, CoupledNeverKeepsAnIdleCoordinatorSpinning)
{
  /* A coupled batch that handled no pages publishes no delay, so the
  coordinator goes idle rather than spin on a blocked history. */
  for (uint64_t history : {0u, 5000u, 50000u, 5000000u})
    EXPECT_FALSE(coordinator_continues(true, 0,
                                       batch_delay(true, 0, history, 10000,
                                                   5000)));
}
