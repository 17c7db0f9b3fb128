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

/* The adaptive purge throttle against simulated producer/consumer models:
 - a fluid one: N DML threads, each transaction taking t_trx, committing at
   N / t_trx or at the controller's limit, whichever is lower; purge
   consuming history at a capacity of P transactions per second, optionally
   less while DML keeps the CPUs busy; the controller updated every 10 ms,
   as the purge coordinator's batches do;
 - a saturated server, thread by thread (SaturatedServer below). */

#include "trx0throttle.h"
#include <gtest/gtest.h>
#include <algorithm>
#include <deque>
#include <random>
#include <thread>
#include <vector>

using purge_throttle::adaptive_controller;
using purge_throttle::admission_gate;

namespace
{
struct sim_result
{
  std::vector<double> history;    /* per step */
  std::vector<double> rate;       /* DML commits per second, per step */
  std::vector<uint64_t> limit;    /* per step */
  double max_history= 0;
};

struct workload
{
  /* C++11: a struct with default member initializers is no aggregate */
  workload(double threads, double trx_us, double purge_per_s) :
    threads(threads), trx_us(trx_us), purge_per_s(purge_per_s) {}
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
    const uint64_t l= c.update(uint64_t(t * 1e6) + 1, uint64_t(h),
                               uint64_t(parsed), target, !stalled);
    const double natural= w.threads / (w.trx_us * 1e-6);
    const double rate= l ? std::min(natural, double(l)) : natural;
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
    r.limit.push_back(l);
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

TEST(AdaptiveThrottle, NoTargetNoLimit)
{
  adaptive_controller c;
  for (uint64_t i= 1; i < 100; i++)
    EXPECT_EQ(0u, c.update(i * 10000, i * 100000, i * 1000, 0, true));
}

/* history grows by 1000 per 10 ms while purge parses 1000 per 10 ms */
static void overload(adaptive_controller &c, uint64_t from, uint64_t n,
                     bool progress= true)
{
  for (uint64_t i= from; i < from + n; i++)
    c.update(i * 10000, 20000 + i * 1000, i * 1000, 10000, progress);
}

TEST(AdaptiveThrottle, NeverLimitsWhenPurgeCannotProgress)
{
  adaptive_controller c;
  overload(c, 1, 50);
  ASSERT_GT(c.limit(), 0u);
  overload(c, 51, 1, false);
  EXPECT_EQ(0u, c.limit());
  /* no wind-up: it starts afresh, measuring before it limits again */
  overload(c, 52, 1);
  EXPECT_EQ(0u, c.limit());
}

TEST(AdaptiveThrottle, NeverAFullStop)
{
  adaptive_controller c;
  for (uint64_t i= 1; i < 10000; i++)
  {
    c.update(i * 10000, 20000 + i * 1000000, i * 1000, 10000, true);
    if (i > 10)
    {
      EXPECT_GE(double(c.limit()),
                adaptive_controller::MIN_SHARE * c.purge_rate() - 1);
    }
  }
}

TEST(AdaptiveThrottle, PacesFromTheTarget)
{
  adaptive_controller c;
  uint64_t t= 0, purged= 0;
  /* purge parses 1000 transactions a second and has work throughout */
  auto limit_after= [&](uint64_t history)
  {
    c.update(t+= 100000, history, purged+= 100, 10000, true);
    return c.limit();
  };
  for (int i= 0; i < 20; i++)
    EXPECT_EQ(0u, limit_after(9000)) << "over three quarters: not paced";
  EXPECT_EQ(10000u, adaptive_controller::pace_from(10000));
  EXPECT_EQ(0u, limit_after(10000));
  EXPECT_GT(limit_after(10001), 900u) << "paced, at about purge's rate";
  EXPECT_GT(limit_after(9000), 1000u) << "under target: over purge's rate";
  const uint64_t at_10500= limit_after(10500);
  EXPECT_LT(limit_after(11000), at_10500) << "it tightens";
  EXPECT_LT(limit_after(11000), 1000u) << "under purge's rate over target";
  EXPECT_GT(limit_after(9000), 1000u) << "once paced, down to 3/4";
  EXPECT_GT(limit_after(7501), 1000u);
  EXPECT_EQ(0u, limit_after(7500));
  EXPECT_EQ(0u, limit_after(9000)) << "and from the target again";
  EXPECT_EQ(0u, adaptive_controller::pace_from(0));
}

TEST(AdaptiveThrottle, ActsOnTheHistoryThatTheTransactionsInsideWillLeave)
{
  adaptive_controller c;
  uint64_t t= 0, purged= 0;
  auto limit_after= [&](uint64_t history, uint64_t inside)
  {
    c.update(t+= 100000, history, purged+= 100, 10000, true, inside);
    return c.limit();
  };
  for (int i= 0; i < 20; i++)
    EXPECT_EQ(0u, limit_after(6000, 4000));
  /* 4,001 uncommitted transactions take 6,000 of history over the target */
  EXPECT_GT(limit_after(6000, 4001), 0u);
  /* once they have committed, the limit goes on down to 3/4 of it */
  EXPECT_GT(limit_after(7501, 0), 0u);
  EXPECT_EQ(0u, limit_after(7000, 500));
  /* the cap too: on over cap_from(), off at cap_off(), both counting them */
  const uint64_t target= 10000;
  EXPECT_EQ(0u, c.truncation_cap(0, 6000, 0, target, 64, 4000));
  EXPECT_EQ(64u, c.truncation_cap(0, 6000, 0, target, 64, 4001));
  EXPECT_EQ(64u, c.truncation_cap(0, 4000, 0, target, 64, 3501));
  EXPECT_EQ(0u, c.truncation_cap(0, 4000, 0, target, 64, 3500));
  /* but only with more than half of cap_from() waiting for truncation */
  EXPECT_EQ(0u, c.truncation_cap(0, 6000, 1000, target, 64, 4001));
}

TEST(AdaptiveThrottle, ARateLimitBringsTheCapOnOnlyWithAThreadPerConnection)
{
  const uint64_t target= 10000;
  for (bool pooled : {false, true})
  {
    adaptive_controller c;
    uint64_t t= 0, purged= 0;
    /* purge is behind on all of the history: a commit rate limit comes on */
    for (int i= 0; i < 20; i++)
      c.update(t+= 100000, 9000, purged+= 1000, target, true, 2000);
    ASSERT_GT(c.limit(), 0u);
    /* nothing waits for truncation: only the limit can bring the cap on */
    EXPECT_EQ(pooled ? 0u : 64u,
              c.truncation_cap(0, 9000, 9000, target, 64, 2000, pooled));
    /* truncation lagging brings it on either way */
    adaptive_controller d;
    EXPECT_EQ(64u, d.truncation_cap(0, 9000, 1000, target, 64, 2000,
                                    pooled));
  }
}

TEST(AdaptiveThrottle, TheCapIsHeldWhileAllWaitersWouldOvershoot)
{
  adaptive_controller c;
  const uint64_t target= 10000, STEP= adaptive_controller::RELEASE_STEP;
  uint64_t now= 1000000;
  EXPECT_EQ(64u, c.ease_out(now, c.truncation_cap(0, 12000, 0, target, 64),
                            true, true));
  EXPECT_EQ(0u, c.truncation_cap(0, 7000, 0, target, 64));
  EXPECT_EQ(128u, c.ease_out(now + STEP, 0, true, true));
  EXPECT_EQ(256u, c.ease_out(now + 2 * STEP, 0, true, true));
  EXPECT_EQ(512u, c.ease_out(now + 3 * STEP, 0, true, true));
  /* held at half of RELEASE_END while letting all in would overshoot */
  EXPECT_EQ(512u, c.ease_out(now + 4 * STEP, 0, true, true));
  EXPECT_EQ(512u, c.ease_out(now + 40 * STEP, 0, true, true));
  EXPECT_TRUE(c.capping());
  /* lifted at the next step once it would not */
  EXPECT_EQ(512u, c.ease_out(now + 41 * STEP - 1, 0, true, false));
  EXPECT_EQ(0u, c.ease_out(now + 41 * STEP, 0, true, false));
  EXPECT_FALSE(c.capping());
  /* a cap eased from over half of RELEASE_END is held at half of it */
  EXPECT_EQ(600u, c.ease_out(now + 50 * STEP, 600, true, true));
  EXPECT_EQ(512u, c.ease_out(now + 51 * STEP, 0, true, true));
  /* nobody waits: lifted at once, held or not */
  EXPECT_EQ(0u, c.ease_out(now + 51 * STEP + 1, 0, false, true));
  EXPECT_FALSE(c.capping());
  /* held while letting every waiter in would take the history, those
  inside and the waiters over three quarters of the target */
  EXPECT_FALSE(adaptive_controller::hold(2000, 500, 500, target));
  EXPECT_TRUE(adaptive_controller::hold(6500, 500, 501, target));
  EXPECT_FALSE(adaptive_controller::hold(6500, 500, 500, target));
  EXPECT_TRUE(adaptive_controller::hold(2000, 500, 5001, target, true));
  EXPECT_FALSE(adaptive_controller::hold(2000, 500, 5000, target, true));
  /* or while more than 512 wait, whatever the history */
  EXPECT_TRUE(adaptive_controller::hold(0, 0, 513, target));
  EXPECT_FALSE(adaptive_controller::hold(0, 0, 512, target));
  /* in a thread pool, unless the history is near empty */
  EXPECT_TRUE(adaptive_controller::hold(2500, 0, 513, target, true));
  EXPECT_FALSE(adaptive_controller::hold(2499, 0, 513, target, true));
  EXPECT_FALSE(adaptive_controller::hold(2500, 0, 512, target, true));
  EXPECT_TRUE(adaptive_controller::hold(2000, 500, 5001, target, true));
}

TEST(AdaptiveThrottle, PollsWhileOverThreeQuartersOfTheTarget)
{
  EXPECT_TRUE(adaptive_controller::keep_polling(7501, 10000));
  EXPECT_FALSE(adaptive_controller::keep_polling(7500, 10000));
  EXPECT_FALSE(adaptive_controller::keep_polling(1000000, 0));
}

TEST(AdaptiveThrottle, DrainsFrom95PercentOfTheTargetDownToThreeQuarters)
{
  adaptive_controller c;
  const unsigned wide= purge_throttle::rseg_drain::ADAPTIVE_WIDTH;
  uint64_t t= 0;
  auto width_after= [&](uint64_t history, uint64_t target, bool progress)
  {
    t+= 100000;
    c.update(t, history, t / 10, target, progress);
    return c.drain_width();
  };
  EXPECT_EQ(0u, width_after(9500, 10000, true));
  EXPECT_EQ(wide, width_after(9501, 10000, true));
  EXPECT_EQ(wide, width_after(7501, 10000, true));
  EXPECT_EQ(0u, width_after(7500, 10000, true));
  EXPECT_EQ(0u, width_after(8000, 10000, true));
  /* purge blocked by a read view: a segment whose last transaction the
  view still sees looks busy to every pass, so withholding it cannot help
  and would last as long as the view; the drain stops */
  EXPECT_EQ(wide, width_after(20000, 10000, true));
  EXPECT_EQ(0u, width_after(20000, 10000, false));
  /* and starts again over drain_from() once purge progresses */
  EXPECT_EQ(wide, width_after(20000, 10000, true));
  EXPECT_EQ(0u, width_after(20000, 0, true));
}

namespace
{
constexpr uint64_t ms= 1000000;  /* nanoseconds */

/* A gate sized for 10 threads: 1000 commits/s at 10 ms per transaction */
void size_for_ten(admission_gate &g, uint64_t &now)
{
  EXPECT_EQ(unsigned{admission_gate::MAX_SLOTS}, g.resize(now, 1000))
    << "nothing measured yet: everyone is let in";
  admission_gate::ticket t[10];
  for (auto &x : t)
    ASSERT_TRUE(g.enter(now, x));
  now+= 10 * ms;
  for (auto &x : t)
    EXPECT_TRUE(g.leave(now, x));
  now+= admission_gate::WINDOW;
  ASSERT_EQ(10u, g.resize(now, 1000));
}
} // namespace

TEST(AdaptiveThrottle, CapsConnectionsWhileMostOfTheHistoryWaitsForTruncation)
{
  adaptive_controller c;
  const uint64_t target= 10000;
  /* over the target, but purge is behind on most of it: the rate limit's
  case, no cap */
  EXPECT_EQ(0u, c.truncation_cap(0, 12000, 8000, target, 64));
  /* not over the target yet */
  EXPECT_EQ(0u, c.truncation_cap(0, 10000, 0, target, 64));
  /* over it, and more than half the target is processed history */
  EXPECT_EQ(64u, c.truncation_cap(0, 12000, 1000, target, 64));
  /* on until the history is down to three quarters of the target, whatever
  its split; at the segments that new transactions can take */
  EXPECT_EQ(96u, c.truncation_cap(0, 7501, 7000, target, 96));
  EXPECT_EQ(0u, c.truncation_cap(0, 7500, 0, target, 64));
  EXPECT_EQ(0u, c.truncation_cap(0, 9000, 0, target, 64));
  /* never without a target, never below MIN_CAP */
  EXPECT_EQ(0u, c.truncation_cap(0, 1000000, 0, 0, 64));
  EXPECT_EQ(unsigned(adaptive_controller::MIN_CAP),
            c.truncation_cap(0, 20000, 0, target, 0));
  /* the target switched off ends it */
  EXPECT_EQ(0u, c.truncation_cap(0, 20000, 0, 0, 64));
  EXPECT_EQ(0u, c.truncation_cap(0, 9000, 0, target, 64));
}

TEST(AdaptiveThrottle, TheCapAimsItsPeakAtTheTarget)
{
  adaptive_controller c;
  const uint64_t target= 10000;
  /** one episode: on over `from`, up to `peak`, then down until off */
  auto episode= [&](uint64_t from, uint64_t peak, uint64_t t= 10000)
  {
    EXPECT_EQ(0u, c.truncation_cap(0, from, 0, t, 64));
    EXPECT_EQ(64u, c.truncation_cap(0, from + 1, 0, t, 64));
    EXPECT_EQ(64u, c.truncation_cap(0, peak, 0, t, 64));
    /* off t / 4 under where it came on, or at half of that */
    const uint64_t off= from - std::min(t / 4, from / 2);
    EXPECT_EQ(off, adaptive_controller::cap_off(from, t));
    EXPECT_EQ(64u, c.truncation_cap(0, off + 1, 0, t, 64));
    EXPECT_EQ(0u, c.truncation_cap(0, off, 0, t, 64));
  };
  /* none before the first call: it starts from the target */
  EXPECT_EQ(0u, c.cap_from());
  EXPECT_EQ(0u, c.truncation_cap(0, 0, 0, target, 64));
  EXPECT_EQ(target, c.cap_from());
  /* the history overshot by 4000: come on 2000 earlier */
  episode(10000, 14000);
  EXPECT_EQ(8000u, c.cap_from());
  /* on under drain_from(): the cap drains too */
  EXPECT_EQ(0u, c.drain_width());
  EXPECT_EQ(64u, c.truncation_cap(0, 8001, 0, target, 64));
  EXPECT_EQ(unsigned(purge_throttle::rseg_drain::ADAPTIVE_WIDTH), c.drain_width());
  EXPECT_EQ(0u, c.truncation_cap(0, 8000 - target / 4, 0, target, 64));
  EXPECT_EQ(0u, c.drain_width());
  /* that episode peaked at 8001 */
  EXPECT_EQ(8999u, c.cap_from());
  episode(8999, 12999);
  EXPECT_EQ(7500u, c.cap_from());
  /* a peak under the target: come on later again, never over the target */
  episode(7500, 9000);
  EXPECT_EQ(8000u, c.cap_from());
  episode(8000, 6000 + target);
  EXPECT_EQ(5000u, c.cap_from());
  /* never under a quarter of the target; under half of it, on down to
  half of where it came on */
  episode(c.cap_from(), 100000);
  EXPECT_EQ(target / 4, c.cap_from());
  episode(target / 4, 9000);
  EXPECT_EQ(target / 4 + 500, c.cap_from());
  EXPECT_EQ(1500u, adaptive_controller::cap_off(3000, target));
  /* it still needs half of where it comes on processed */
  EXPECT_EQ(0u, c.truncation_cap(0, 8000, 8000 - 1500, target, 64));
  EXPECT_EQ(64u, c.truncation_cap(0, 8000, 8000 - 1501, target, 64));
  EXPECT_EQ(64u, c.truncation_cap(0, 1501, 0, target, 64));
  EXPECT_EQ(0u, c.truncation_cap(0, 1500, 0, target, 64));
  /* a new target starts from the target */
  EXPECT_EQ(0u, c.truncation_cap(0, 1000, 0, 20000, 64));
  EXPECT_EQ(20000u, c.cap_from());
  episode(20000, 20000 + 1, 20000);
  EXPECT_EQ(20000u, c.cap_from());
}

TEST(AdaptiveThrottle, TheCapAimsTheHistorys95thPercentileAtTheTarget)
{
  adaptive_controller c;
  const uint64_t target= 10000, ms= 1000;
  uint64_t now= 1000 * ms;
  /** the history is `history` from now on for `dt` */
  auto feed= [&](uint64_t history, uint64_t dt)
  {
    const unsigned cap= c.truncation_cap(now, history, 0, target, 64);
    now+= dt;
    return cap;
  };
  /** the history rises by `step` every 10 ms from `from` up to `to` */
  auto ramp= [&](uint64_t from, uint64_t to, uint64_t step)
  {
    for (uint64_t h= from; h <= to; h+= step)
      feed(h, 10 * ms);
  };
  EXPECT_EQ(0u, feed(0, 0));
  EXPECT_EQ(target, c.cap_from());
  EXPECT_EQ(0u, adaptive_controller::cycle_bin(target / 32 - 1, target));
  EXPECT_EQ(32u, adaptive_controller::cycle_bin(target, target));
  EXPECT_EQ(adaptive_controller::CYCLE_BINS - 1,
            adaptive_controller::cycle_bin(2 * target, target));
  /* a saw-tooth up to 12000: over 11406 (the middle of its bin) for 5% of
  the time.  Aiming the peak would come on at 9000. */
  ramp(0, 12000, 100);
  EXPECT_EQ(64u, feed(12000, 0));
  EXPECT_EQ(0u, feed(0, 10 * ms));
  EXPECT_EQ(10000u - (11406u - 10000u) / 2, c.cap_from());
  /* a long stretch at 6000, and a brief spike to 12000: the spike is not
  the 95th percentile, so the threshold goes back up to the target.
  Aiming the peak would lower it to 8297. */
  feed(6000, 10000 * ms);
  ramp(6000, 12000, 1000);
  EXPECT_EQ(0u, feed(0, 10 * ms));
  EXPECT_EQ(target, c.cap_from());
  /* most of the cycle at 13000, inside the episode */
  feed(13000, 5000 * ms);
  EXPECT_EQ(0u, feed(0, 10 * ms));
  EXPECT_EQ(10000u - (12968u - 10000u) / 2, c.cap_from());
  /* over twice the target the histogram tells no more: the peak */
  feed(30000, 5000 * ms);
  feed(31000, 5000 * ms);
  EXPECT_EQ(0u, feed(0, 10 * ms));
  EXPECT_EQ(target / 4, c.cap_from());
  /* a new target starts afresh */
  EXPECT_EQ(0u, c.truncation_cap(now, 0, 0, 2 * target, 64));
  EXPECT_EQ(2 * target, c.cap_from());
}

TEST(AdaptiveThrottle, TheCapIsEasedOut)
{
  adaptive_controller c;
  const uint64_t target= 10000, STEP= adaptive_controller::RELEASE_STEP;
  uint64_t now= 1000000;
  EXPECT_EQ(0u, c.ease_out(now, 0, true));
  EXPECT_FALSE(c.capping());
  EXPECT_EQ(64u, c.ease_out(now, c.truncation_cap(0, 12000, 0, target, 64),
                            true));
  EXPECT_TRUE(c.capping());
  /* the episode ends: the last cap stays for a step, then doubles; the
  coordinator keeps looking until it is lifted */
  EXPECT_EQ(64u, c.ease_out(now + 1, c.truncation_cap(0, 7000, 0, target, 64),
                            true));
  EXPECT_TRUE(c.capping());
  EXPECT_EQ(64u, c.ease_out(now + STEP - 1, 0, true));
  EXPECT_EQ(128u, c.ease_out(now + STEP, 0, true));
  EXPECT_EQ(128u, c.ease_out(now + 2 * STEP - 1, 0, true));
  EXPECT_EQ(256u, c.ease_out(now + 2 * STEP, 0, true));
  EXPECT_EQ(512u, c.ease_out(now + 3 * STEP, 0, true));
  EXPECT_TRUE(c.capping());
  /* lifted once it would reach RELEASE_END */
  EXPECT_EQ(0u, c.ease_out(now + 4 * STEP, 0, true));
  EXPECT_FALSE(c.capping());
  EXPECT_EQ(0u, c.ease_out(now + 9 * STEP, 0, true));
  /* a new episode takes over while easing */
  now+= 10 * STEP;
  EXPECT_EQ(96u, c.ease_out(now, 96, true));
  EXPECT_EQ(96u, c.ease_out(now + STEP - 1, 0, true));
  EXPECT_EQ(192u, c.ease_out(now + STEP, 0, true));
  EXPECT_EQ(40u, c.ease_out(now + STEP + 1, 40, true));
  /* nothing to ease (no target: the switch OFF or innodb_max_purge_lag=0):
  lifted at once */
  EXPECT_EQ(0u, c.ease_out(now + 3 * STEP, 0, false));
  EXPECT_EQ(0u, c.ease_out(now + 4 * STEP, 0, true));
  /* nobody waits: lifted at once, and stays lifted */
  EXPECT_EQ(64u, c.ease_out(now + 5 * STEP, 64, true));
  EXPECT_EQ(64u, c.ease_out(now + 5 * STEP + 1, 0, true));
  EXPECT_EQ(0u, c.ease_out(now + 5 * STEP + 2, 0, false));
  EXPECT_FALSE(c.capping());
  EXPECT_EQ(0u, c.ease_out(now + 7 * STEP, 0, true));
  /* the history emptied during an episode (purge_throttle_no_history()):
  the episode ends with nothing to ease */
  EXPECT_NE(0u, c.ease_out(now + 8 * STEP,
                           c.truncation_cap(0, 12000, 0, target, 64), true));
  EXPECT_EQ(0u, c.ease_out(now + 8 * STEP, c.truncation_cap(0, 0, 0, target, 0),
                           false));
  EXPECT_FALSE(c.capping());
  EXPECT_EQ(0u, c.ease_out(now + 9 * STEP, 0, true));
}

TEST(AdmissionGate, ACapBoundsTheRatesConcurrency)
{
  admission_gate g;
  /* a cap without a rate: exactly the cap; one as large as the slots is
  none */
  EXPECT_EQ(5u, g.resize(1, 0, 5));
  EXPECT_EQ(0u, g.resize(2, 0, admission_gate::MAX_SLOTS));
  EXPECT_EQ(0u, g.resize(3, 0, 0));
  /* a rate before any holding time is measured lets everyone in, but not
  past the cap */
  EXPECT_EQ(7u, g.resize(4, 1000, 7));
  EXPECT_EQ(unsigned(admission_gate::MAX_SLOTS), g.resize(5, 1000, 0));
}

TEST(AdmissionGate, LetsInAsManyAsTheRateNeeds)
{
  admission_gate g;
  uint64_t now= 1000 * ms;
  size_for_ten(g, now);
  admission_gate::ticket t[11];
  for (int i= 0; i < 10; i++)
    EXPECT_TRUE(g.enter(now, t[i]));
  EXPECT_FALSE(g.enter(now, t[10]));
  EXPECT_EQ(0u, t[10].since);
  EXPECT_TRUE(g.leave(now + ms, t[3]));
  EXPECT_EQ(0u, t[3].since);
  EXPECT_FALSE(g.leave(now + ms, t[3])) << "a ticket is given back once";
  EXPECT_TRUE(g.enter(now + ms, t[10])) << "a commit lets the next one in";
  EXPECT_EQ(10u, g.running());
}

TEST(AdmissionGate, NoLimitNoWait)
{
  admission_gate g;
  admission_gate::ticket t;
  EXPECT_TRUE(g.enter(1000 * ms, t));
  EXPECT_EQ(0u, t.since) << "no limit: no ticket to give back";
  uint64_t now= 1000 * ms;
  size_for_ten(g, now);
  EXPECT_EQ(0u, g.resize(now, 0));
  for (int i= 0; i < 100; i++)
    EXPECT_TRUE(g.enter(now, t));
}

TEST(AdmissionGate, ALimitThatReturnsStartsFromTheLastHoldingTime)
{
  admission_gate g;
  uint64_t now= 1000 * ms;
  size_for_ten(g, now);
  EXPECT_EQ(0u, g.resize(now, 0)) << "the limit is lifted";
  now+= 1000 * ms;
  EXPECT_EQ(20u, g.resize(now, 2000))
    << "back in force at twice the rate: 10 ms per transaction as measured"
       " last, not everyone let in for a window";
  admission_gate::ticket t[21];
  for (int i= 0; i < 20; i++)
    EXPECT_TRUE(g.enter(now, t[i]));
  EXPECT_FALSE(g.enter(now, t[20]));
  now+= 20 * ms;
  for (int i= 0; i < 20; i++)
    EXPECT_TRUE(g.leave(now, t[i]));
  now+= admission_gate::WINDOW;
  EXPECT_EQ(40u, g.resize(now, 2000)) << "and measured again: 20 ms";
}

TEST(AdmissionGate, LittlesLaw)
{
  EXPECT_EQ(16u, admission_gate::concurrency_for(4000, 0.004));
  EXPECT_EQ(unsigned{admission_gate::MIN_CONCURRENCY},
            admission_gate::concurrency_for(1, 0.001)) << "never a full stop";
  EXPECT_EQ(unsigned{admission_gate::MAX_SLOTS},
            admission_gate::concurrency_for(1000000000, 1));
}

TEST(AdmissionGate, ExpiredTicketsFreeTheirSlots)
{
  admission_gate g;
  uint64_t now= 1000 * ms;
  size_for_ten(g, now);
  admission_gate::ticket gone[10], t;
  for (auto &x : gone)
    EXPECT_TRUE(g.enter(now, x));
  EXPECT_FALSE(g.enter(now + admission_gate::LEASE, t));
  now+= admission_gate::LEASE + 2 * ms;
  for (int i= 0; i < 10; i++)
  {
    admission_gate::ticket u;
    EXPECT_TRUE(g.enter(now, u)) << "threads that went away hold no slot";
  }
  EXPECT_FALSE(g.enter(now, t));
  /* an expired ticket cannot free the slot that another thread holds now */
  for (auto &x : gone)
    EXPECT_FALSE(g.leave(now, x));
  EXPECT_EQ(10u, g.running());
}

TEST(AdmissionGate, MeasuresOverAWindow)
{
  admission_gate g;
  uint64_t now= 1000 * ms;
  size_for_ten(g, now);
  admission_gate::ticket t;
  EXPECT_TRUE(g.enter(now, t));
  EXPECT_TRUE(g.leave(now + 40 * ms, t));
  EXPECT_EQ(10u, g.resize(now + 40 * ms, 1000)) << "shorter than WINDOW";
  /* 40 ms per transaction at 1000/s: 40 threads */
  EXPECT_EQ(40u, g.resize(now + admission_gate::WINDOW, 1000));
  EXPECT_EQ(40u, g.resize(now + 3 * admission_gate::WINDOW, 1000))
    << "nothing given back since: kept";
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
  /* once converged, the limit is never lifted and the commit rate stays
  within 10% of its mean: no oscillation between a full stop and no
  throttle at all */
  const auto rate= tail(r.rate, 3000);
  const double m= mean(rate);
  for (size_t i= 0; i < rate.size(); i++)
  {
    ASSERT_GT(tail(r.limit, 3000)[i], 0u);
    ASSERT_NEAR(rate[i], m, 0.1 * m);
  }
}

TEST(AdaptiveThrottle, RecoversFromAPurgeStall)
{
  workload w{256, 2560, 20000};
  w.stall_from= 20; w.stall_to= 25;
  const sim_result r= simulate(w, 10000, 80);
  /* during the stall DML is not limited, so history grows */
  EXPECT_EQ(0u, r.limit[2200]);
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

TEST(AdaptiveThrottle, LimitAppliesOnlyWhileFreshAndPurgeRuns)
{
  constexpr auto stale= adaptive_controller::STALE;
  EXPECT_TRUE(adaptive_controller::limit_applies(5000, 0, true));
  EXPECT_TRUE(adaptive_controller::limit_applies(5000, stale - 1, true));
  EXPECT_FALSE(adaptive_controller::limit_applies(0, 0, true));
  /* purge disabled or paused (shutdown, FLUSH TABLES FOR EXPORT) */
  EXPECT_FALSE(adaptive_controller::limit_applies(5000, 0, false));
  /* the coordinator stopped updating: the limit is not backed by purge */
  EXPECT_FALSE(adaptive_controller::limit_applies(5000, stale, true));
  /* unless it is in the batch that followed: that may take seconds */
  constexpr auto in_batch= adaptive_controller::STALE_IN_BATCH;
  EXPECT_TRUE(adaptive_controller::limit_applies(5000, stale, true, true));
  EXPECT_TRUE(adaptive_controller::limit_applies(5000, in_batch - 1, true,
                                                 true));
  EXPECT_FALSE(adaptive_controller::limit_applies(5000, in_batch, true, true));
  EXPECT_FALSE(adaptive_controller::limit_applies(5000, 0, false, true));
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

namespace
{
/* A saturated server, thread by thread, as 256 sysbench threads on 2 cores:
 - it completes at most max_tps transactions per second, shared by the
   threads that run one (a thread alone takes trx_us); delaying a few
   threads does not lower its commit rate, they only queue less;
 - purge parses a batch at a time (its size varies, as the transactions per
   127 undo pages do) at a capacity that falls as DML's commit rate takes
   the CPUs (measured over 0.2 s);
 - the controller is updated after each batch, as by the coordinator, and
   its limit lets threads in through an admission_gate;
 - the history shows what purge parsed every 0.5 s (undo log truncation). */
struct saturated_result
{
  std::vector<double> history;    /* every 0.1 s */
  std::vector<double> commits;    /* commits in each 0.1 s */
  std::vector<unsigned> concurrency;  /* the gate's, every 0.1 s */
};

saturated_result simulate_saturated(uint64_t target, double seconds)
{
  constexpr int threads= 256;
  constexpr double trx_s= 0.004, max_tps= 5000, purge_max= 16000;
  constexpr double cpu_contention= 0.9, dt= 0.001;
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> trx_work(0.5 * trx_s, 1.5 * trx_s),
    batch_trx(200, 2000);
  std::vector<double> work(threads), queued_at(threads, -1);
  std::vector<admission_gate::ticket> ticket(threads);
  std::deque<int> queue;
  for (double &x : work) x= trx_work(rng);
  adaptive_controller c;
  admission_gate gate;
  saturated_result r;
  double commits= 0, parsed= 0, truncated= 0, history= 0;
  double batch= 0, batch_left= 0, tps= max_tps, counted= 0;
  int running= threads;
  auto ns= [](double t) { return uint64_t(t * 1e9) + 1; };
  /* first come first served, as srv0purgelab.cc lets them in */
  auto admit_waiters= [&](double t)
  {
    while (!queue.empty() && gate.enter(ns(t), ticket[queue.front()]))
    {
      queued_at[queue.front()]= -1;
      work[queue.front()]= trx_work(rng);
      queue.pop_front();
    }
  };
  for (int step= 0; step < int(seconds / dt); step++)
  {
    const double t= step * dt;
    const double speed= std::min(1.0, max_tps * trx_s / std::max(1, running));
    double committed= 0;
    for (int i= 0; i < threads; i++)
    {
      if (queued_at[i] >= 0)
      {
        if (t - queued_at[i] < 1e-9 * admission_gate::MAX_WAIT)
          continue;
        queue.erase(std::find(queue.begin(), queue.end(), i));
        queued_at[i]= -1;                  /* waited long enough: go on */
        work[i]= trx_work(rng);
      }
      work[i]-= speed * dt;
      if (work[i] > 0)
        continue;
      committed++;
      if (gate.leave(ns(t), ticket[i]))
        admit_waiters(t);
      if (c.limit() && (!queue.empty() || !gate.enter(ns(t), ticket[i])))
      {
        queue.push_back(i);
        queued_at[i]= t;
      }
      else
        work[i]= trx_work(rng);
    }
    running= threads - int(queue.size());
    commits+= committed;
    history+= committed;
    tps+= (committed / dt - tps) * dt / 0.2;
    const double capacity= purge_max *
      (1 - cpu_contention * std::min(1.0, tps / max_tps));
    if (batch > 0 && (batch_left-= capacity * dt) <= 0)
      batch= 0;
    if (batch <= 0 && commits - parsed >= 1)
    {
      batch= batch_left= std::min(commits - parsed, batch_trx(rng));
      parsed+= batch;
      gate.resize(ns(t), c.update(uint64_t(t * 1e6) + 1, uint64_t(history),
                                  uint64_t(parsed), target, true));
      admit_waiters(t);
    }
    if (step % 500 == 0)
    {
      history-= parsed - batch - truncated;
      truncated= parsed - batch;
    }
    if (step % 100 == 0)
    {
      r.history.push_back(history);
      r.commits.push_back(commits - counted);
      r.concurrency.push_back(gate.concurrency());
      counted= commits;
    }
  }
  return r;
}
} // namespace

/* The controller that chose a delay by the ratio of measured to wanted
commit rate stopped this server for whole 0.1 s intervals (no commit at
all), then let it run free, and its history p95 was 17,500: a delay
shorter than the time a thread queues has no effect, so it grew 4x per
update until it stopped nearly every thread.  A limit that followed every
rise of purge's rate within 0.5 s still let the commit rate swing from a
tenth of its mean to full speed. */
TEST(AdaptiveThrottle, SmoothOnASaturatedServer)
{
  const uint64_t target= 10000;
  const saturated_result r= simulate_saturated(target, 90);
  const auto commits= tail(r.commits, 600);   /* the last 60 s */
  const double m= mean(commits);
  EXPECT_GE(*std::min_element(commits.begin(), commits.end()), 0.25 * m)
    << "no stop: every 0.1 s commits at least a quarter of the mean";
  /* purge at full DML rate parses 1,600/s, alone 16,000/s; they balance
  near 4,150/s (= 16000 * (1 - 0.9 * x / 5000)) */
  const double balance= 16000 / (1 + 0.9 * 16000 / 5000);
  EXPECT_GE(m * 10, 0.95 * balance);
  /* the history falls every 0.5 s by what purge parsed in between */
  EXPECT_LE(pct(tail(r.history, 600), 95), 1.1 * target + 0.5 * balance);
  /* the gate holds the rate by admitting fewer threads than the server's
  saturation point (max_tps * trx_s = 20), not 256 */
  const auto k= tail(r.concurrency, 600);
  std::vector<double> kd(k.begin(), k.end());
  EXPECT_LE(pct(kd, 95), 20);
  EXPECT_GE(pct(kd, 5), 5) << "and not by stopping nearly all of them";
}
