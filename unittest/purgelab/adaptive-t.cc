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
N DML threads, each transaction taking t_trx plus the delay (taken after its
commit); purge consuming history at a capacity of P transactions per second,
optionally less while DML keeps the CPUs busy; the controller updated every
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
  std::vector<double> rate;       /* DML commits per second, per step */
  std::vector<uint64_t> delay;    /* per step */
  double max_history= 0;
};

struct workload
{
  double threads;        /* concurrent DML threads */
  double trx_us;         /* service time of a transaction without delay */
  double purge_per_s;    /* purge capacity, transactions per second */
  /* the share of the purge capacity that unthrottled DML takes away by
  competing for the CPUs, in proportion to the DML commit rate */
  double cpu_contention= 0;
  /* the history length shows purge's progress only every this many
  seconds, in one step, as undo log truncation after batches does */
  double purge_step= 0;
  double stall_from= -1; /* purge makes no progress in [stall_from, stall_to) */
  double stall_to= -1;
  /* from this time on, purge's capacity is purge_per_s * capacity_factor,
  as when the DML moves to tables whose purge costs more */
  double capacity_change_at= -1;
  double capacity_factor= 1;
};

/* purge's capacity while DML commits at rate */
double purge_capacity(const workload &w, double rate, double t)
{
  const double unthrottled= w.threads / (w.trx_us * 1e-6);
  const double capacity= w.capacity_change_at >= 0 && t >= w.capacity_change_at
    ? w.purge_per_s * w.capacity_factor : w.purge_per_s;
  return capacity * (1 - w.cpu_contention * rate / unthrottled);
}

sim_result simulate(const workload &w, uint64_t target, double seconds)
{
  constexpr double dt= 0.01;
  adaptive_controller c;
  sim_result r;
  /* purged: not yet shown in the history; parsed: all that purge did */
  double h= 0, commits= 0, purged= 0, parsed= 0, next_step= 0;
  for (double t= 0; t < seconds; t+= dt)
  {
    const bool stalled= t >= w.stall_from && t < w.stall_to;
    const uint64_t d= c.update(uint64_t(t * 1e6) + 1, uint64_t(h),
                               uint64_t(commits), uint64_t(parsed), target,
                               !stalled);
    const double rate= w.threads / ((w.trx_us + double(d)) * 1e-6);
    h+= rate * dt;
    commits+= rate * dt;
    if (!stalled)
    {
      const double p= std::max(0.0, std::min(h - purged,
                                              purge_capacity(w, rate, t) * dt));
      purged+= p;
      parsed+= p;
    }
    if (t >= next_step)
    {
      h-= purged;
      purged= 0;
      next_step= t + w.purge_step;
    }
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
    EXPECT_EQ(0u, c.update(i * 10000, i * 100000, i * 101000, i * 1000, 0,
                           true));
}

/* history grows by 1000 per 10 ms while commits run at 200k/s */
static void overload(adaptive_controller &c, uint64_t from, uint64_t n,
                     bool progress= true)
{
  for (uint64_t i= from; i < from + n; i++)
    c.update(i * 10000, 20000 + i * 1000, i * 2000, i * 1000, 10000,
             progress);
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
  EXPECT_LE(c.delay(), 4 * adaptive_controller::TRX_US);
}

TEST(AdaptiveThrottle, AlwaysBounded)
{
  adaptive_controller c;
  for (uint64_t i= 1; i < 10000; i++)
  {
    c.update(i * 10000, 20000 + i * 1000000, i * 2000000, i * 1000000, 10000,
             true);
    EXPECT_LE(c.delay(), adaptive_controller::MAX_DELAY);
  }
}

TEST(AdaptiveThrottle, PollsWhileOverHalfTheTarget)
{
  EXPECT_TRUE(adaptive_controller::keep_polling(6000, 10000));
  EXPECT_FALSE(adaptive_controller::keep_polling(5000, 10000));
  EXPECT_FALSE(adaptive_controller::keep_polling(1000000, 0));
}

/* 256 threads that would commit 100k transactions/s unthrottled against a purge
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
  return 2 * target + 0.1 * w.threads / (w.trx_us * 1e-6);
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

TEST(AdaptiveThrottle, DelayAppliesOnlyWhileFreshAndPurgeRuns)
{
  constexpr auto stale= adaptive_controller::STALE;
  EXPECT_TRUE(adaptive_controller::trx_delay_applies(5000, 0, true));
  EXPECT_TRUE(adaptive_controller::trx_delay_applies(5000, stale - 1, true));
  EXPECT_FALSE(adaptive_controller::trx_delay_applies(0, 0, true));
  /* purge disabled or paused (shutdown, FLUSH TABLES FOR EXPORT) */
  EXPECT_FALSE(adaptive_controller::trx_delay_applies(5000, 0, false));
  /* the coordinator stopped updating: the delay is not backed by purge */
  EXPECT_FALSE(adaptive_controller::trx_delay_applies(5000, stale, true));
}

/* On 2 cores purge and DML share the CPUs: unthrottled DML leaves purge a
third of its capacity, and each transaction that the throttle holds back
gives some back. The controller still holds the target, at the rate where
purge and DML balance. */
TEST(AdaptiveThrottle, HoldsTheTargetWhenPurgeCompetesForCpu)
{
  workload w{256, 42000, 9000};
  w.cpu_contention= 0.67;
  const uint64_t target= 10000;
  const sim_result r= simulate(w, target, 90);
  const auto h= tail(r.history, 3000);
  EXPECT_LE(pct(h, 95), 1.1 * target);
  EXPECT_GE(pct(h, 50), 0.5 * target);
  /* the balance: rate = capacity(rate) */
  const double unthrottled= w.threads / (w.trx_us * 1e-6);
  const double balance= w.purge_per_s /
    (1 + w.cpu_contention * w.purge_per_s / unthrottled);
  EXPECT_GE(mean(tail(r.rate, 3000)), 0.95 * balance);
  EXPECT_LE(r.max_history, overshoot_bound(w, target));
}

/* Purge whose progress shows in the history length only every 3 seconds, in
one step (on the server, steps of about 2 seconds of commits were seen): the
purge rate must not be estimated from the rises alone.  Steps longer than
the target's worth of commits cannot be held by any throttle. */
TEST(AdaptiveThrottle, HoldsTheTargetWhenHistoryFallsInSteps)
{
  workload w{256, 42000, 9000};
  w.cpu_contention= 0.67;
  w.purge_step= 3;
  const uint64_t target= 10000;
  const sim_result r= simulate(w, target, 90);
  const double unthrottled= w.threads / (w.trx_us * 1e-6);
  const double balance= w.purge_per_s /
    (1 + w.cpu_contention * w.purge_per_s / unthrottled);
  /* the visible history swings by a step's worth of commits; its peaks
  stay within the target plus that swing */
  EXPECT_LE(pct(tail(r.history, 3000), 95), 1.1 * target + 3 * balance);
  EXPECT_GE(mean(tail(r.rate, 3000)), 0.95 * balance);
}

/* Purge's capacity drops to a third while the throttle holds the target,
as on the server when a backlog caught up in large batches gives way to
small ones, or the DML moves to tables whose purge costs more: the
controller sees the drop in what purge parses, without waiting for the
history to show it, and holds the target again. */
TEST(AdaptiveThrottle, FollowsADropOfPurgeCapacity)
{
  workload w{256, 2560, 30000};
  w.capacity_change_at= 30;
  w.capacity_factor= 1.0 / 3;
  const uint64_t target= 10000;
  const sim_result r= simulate(w, target, 90);
  /* the history grows by what purge no longer removes (20,000/s) for at
  most 0.4 s; a purge rate estimated from the history length over 2 s let
  it grow past 25,000 */
  const std::vector<double> after(r.history.begin() + 3000, r.history.end());
  EXPECT_LE(pct(after, 100), target + 0.4 * 20000);
  EXPECT_LE(pct(tail(r.history, 3000), 95), 1.1 * target);
  EXPECT_GE(mean(tail(r.rate, 3000)), 0.95 * 10000);
}
