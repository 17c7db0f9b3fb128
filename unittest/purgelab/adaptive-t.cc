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

/* The adaptive purge throttle against a simulated producer/consumer model:
N DML threads, each row taking t_row plus the delay; purge consuming history
at a capacity of P transactions per second; the controller updated every
10 ms, as the purge coordinator's batches do. */

#include "trx0throttle.h"
#include <gtest/gtest.h>
#include <algorithm>
#include <vector>

using purge_throttle::adaptive_controller;

namespace
{
struct sim_result
{
  std::vector<double> history;    /* per step */
  std::vector<double> rate;       /* DML rows per second, per step */
  std::vector<uint64_t> delay;    /* per step */
  double max_history= 0;
};

struct workload
{
  double threads;        /* concurrent DML threads */
  double row_us;         /* service time of a row without delay */
  double purge_per_s;    /* purge capacity, transactions per second */
  double stall_from= -1; /* purge makes no progress in [stall_from, stall_to) */
  double stall_to= -1;
};

sim_result simulate(const workload &w, uint64_t target, double seconds)
{
  constexpr double dt= 0.01;
  adaptive_controller c;
  sim_result r;
  double h= 0, commits= 0;
  for (double t= 0; t < seconds; t+= dt)
  {
    const bool stalled= t >= w.stall_from && t < w.stall_to;
    const uint64_t d= c.update(uint64_t(t * 1e6) + 1, uint64_t(h),
                               uint64_t(commits), target, !stalled);
    const double rate= w.threads / ((w.row_us + double(d)) * 1e-6);
    h+= rate * dt;
    commits+= rate * dt;
    if (!stalled)
      h= std::max(0.0, h - w.purge_per_s * dt);
    r.history.push_back(h);
    r.rate.push_back(rate);
    r.delay.push_back(d);
    r.max_history= std::max(r.max_history, h);
  }
  return r;
}

double pct(std::vector<double> v, double p)
{
  std::sort(v.begin(), v.end());
  return v[size_t(p / 100 * double(v.size() - 1))];
}

template<typename T>
std::vector<T> tail(const std::vector<T> &v, size_t n)
{ return std::vector<T>(v.end() - std::min(n, v.size()), v.end()); }

double mean(const std::vector<double> &v)
{
  double s= 0;
  for (double x : v) s+= x;
  return s / double(v.size());
}
} // namespace

TEST(AdaptiveThrottle, NoTargetNoDelay)
{
  adaptive_controller c;
  for (uint64_t i= 1; i < 100; i++)
    EXPECT_EQ(0u, c.update(i * 10000, i * 100000, i * 101000, 0, true));
}

/* history grows by 1000 per 10 ms while commits run at 200k/s */
static void overload(adaptive_controller &c, uint64_t from, uint64_t n,
                     bool progress= true)
{
  for (uint64_t i= from; i < from + n; i++)
    c.update(i * 10000, 20000 + i * 1000, i * 2000, 10000, progress);
}

TEST(AdaptiveThrottle, NeverDelaysWhenPurgeCannotProgress)
{
  adaptive_controller c;
  overload(c, 1, 50);
  ASSERT_GT(c.delay(), 0u);
  overload(c, 51, 1, false);
  EXPECT_EQ(0u, c.delay());
  /* no wind-up: it starts afresh, not from where it was */
  overload(c, 52, 1);
  EXPECT_LE(c.delay(), 4 * adaptive_controller::ROW_US);
}

TEST(AdaptiveThrottle, AlwaysBounded)
{
  adaptive_controller c;
  for (uint64_t i= 1; i < 10000; i++)
  {
    c.update(i * 10000, 20000 + i * 1000000, i * 2000000, 10000, true);
    EXPECT_LE(c.delay(), adaptive_controller::MAX_DELAY);
  }
}

TEST(AdaptiveThrottle, PollsWhileOverHalfTheTarget)
{
  EXPECT_TRUE(adaptive_controller::keep_polling(6000, 10000));
  EXPECT_FALSE(adaptive_controller::keep_polling(5000, 10000));
  EXPECT_FALSE(adaptive_controller::keep_polling(1000000, 0));
}

/* 256 threads that would commit 100k rows/s unthrottled against a purge
that manages 20k/s: the history converges to the target. */
TEST(AdaptiveThrottle, ConvergesToTheTarget)
{
  const workload w{256, 2560, 20000};
  const sim_result r= simulate(w, 10000, 60);
  const auto h= tail(r.history, 3000);   /* the last 30 s */
  EXPECT_LE(pct(h, 95), 11000) << "p95 of history over target + 10%";
  EXPECT_GE(pct(h, 50), 5000) << "no need to starve DML far below target";
  EXPECT_GE(mean(tail(r.rate, 3000)), 0.95 * 20000)
    << "throughput of at least 95% of the purge capacity";
}

/* The history can overshoot by what DML commits while the controller
measures its first rates (WINDOW) and ramps up: bounded by twice the target
plus a tenth of a second of unthrottled commits. */
static double overshoot_bound(const workload &w, double target)
{
  return 2 * target + 0.1 * w.threads / (w.row_us * 1e-6);
}

TEST(AdaptiveThrottle, BoundedOvershoot)
{
  const workload w{256, 2560, 20000};
  const sim_result r= simulate(w, 10000, 30);
  EXPECT_LE(r.max_history, overshoot_bound(w, 10000));
}

TEST(AdaptiveThrottle, SmoothNoStopAndGo)
{
  const workload w{256, 2560, 20000};
  const sim_result r= simulate(w, 10000, 60);
  const auto d= tail(r.delay, 3000);
  /* once converged, the delay neither drops to free running nor hits the
  cap: no oscillation between a full stop and no throttle at all */
  for (uint64_t x : d)
  {
    ASSERT_GT(x, 0u);
    ASSERT_LT(x, adaptive_controller::MAX_DELAY);
  }
}

TEST(AdaptiveThrottle, RecoversFromAPurgeStall)
{
  workload w{256, 2560, 20000};
  w.stall_from= 20; w.stall_to= 25;
  const sim_result r= simulate(w, 10000, 80);
  /* during the stall DML is not delayed, so history grows */
  EXPECT_EQ(0u, r.delay[2200]);
  EXPECT_GT(r.history[2499], 100000);
  /* and it is back under the target + 10% within the last 20 s */
  EXPECT_LE(pct(tail(r.history, 2000), 95), 11000);
}

/* The same controller, no retuning, across a 100x range of rates */
TEST(AdaptiveThrottle, StableAcrossAHundredfoldRangeOfRates)
{
  for (double scale : {0.1, 0.3, 1.0, 3.0, 10.0})
  {
    const double purge= 20000 * scale;
    const workload w{256, 2560 / scale, purge};
    const uint64_t target= 10000;
    const sim_result r= simulate(w, target, 90);
    const auto h= tail(r.history, 3000);
    EXPECT_LE(pct(h, 95), 1.1 * target) << "scale " << scale;
    EXPECT_GE(mean(tail(r.rate, 3000)), 0.95 * purge) << "scale " << scale;
    EXPECT_LE(r.max_history, overshoot_bound(w, target)) << "scale " << scale;
  }
}
