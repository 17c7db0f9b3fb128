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
#include "window_start.h"
#include <gtest/gtest.h>
#include <algorithm>
#include <deque>
#include <random>
#include <thread>
#include <vector>

using purge_throttle::adaptive_controller;
using purge_throttle::admission_gate;
using purgelab_test::inside_for;

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
  const double natural= w.threads / (w.trx_us * 1e-6);
  uint64_t l= 0;
  for (double t= 0; t < seconds; t+= dt)
  {
    const bool stalled= t >= w.stall_from && t < w.stall_to;
    /* connections wait at the gate while the last limit holds DML below
    its natural rate */
    const bool binding= l && natural > double(l);
    l= c.update(uint64_t(t * 1e6) + 1, adaptive_controller::output
                (uint64_t(h), 0), uint64_t(parsed), target, !stalled,
                binding);
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
  {
    EXPECT_EQ(0u, c.update(i * 10000, i * 100000, i * 1000, 0, true));
    EXPECT_FALSE(c.in_force());
    EXPECT_EQ(0u, c.drain_width());
  }
}

namespace
{
/* Evaluates a controller every dt_us while purge parses per_step
transactions per step (100,000/s by default). */
struct driver
{
  adaptive_controller c;
  uint64_t now= 0, purged= 0;
  uint64_t step(uint64_t x, uint64_t target, bool binding= true,
                bool progress= true, uint64_t per_step= 1000,
                uint64_t dt_us= 10000)
  {
    now+= dt_us;
    if (progress)
      purged+= per_step;
    return c.update(now, x, purged, target, progress, binding);
  }
};
} // namespace

TEST(AdaptiveThrottle, NeverLimitsWhenPurgeCannotProgress)
{
  /* over the target; purge parses 100,000/s */
  driver d;
  for (int i= 0; i < 50; i++)
    d.step(30000, 10000);
  ASSERT_GT(d.c.limit(), 0u);
  ASSERT_LT(d.c.integral(), 0) << "over the target: a negative integral";
  const double rate= d.c.purge_rate();
  ASSERT_NEAR(100000, rate, 1);
  /* a read view blocks purge for 10 s: its counter stands still */
  for (int i= 0; i < 1000; i++)
    EXPECT_EQ(0u, d.step(30000, 10000, true, false));
  EXPECT_EQ(0u, d.c.limit());
  EXPECT_FALSE(d.c.in_force());
  EXPECT_EQ(0u, d.c.drain_width());
  /* no wind-up: the integral starts afresh */
  EXPECT_EQ(0, d.c.integral());
  /* purge progresses again: limited at once, from the rate measured
  before; no rate is measured across the blocked time (a window across it
  would see 6,000 parsed in 10 s, 600/s) */
  EXPECT_GT(d.step(30000, 10000), 0u);
  EXPECT_EQ(0, d.c.integral());
  for (int i= 0; i < 5; i++)
    d.step(30000, 10000);
  EXPECT_NEAR(rate, d.c.purge_rate(), 0.01 * rate);
}

TEST(AdaptiveThrottle, NeverAFullStop)
{
  adaptive_controller c;
  for (uint64_t i= 1; i < 10000; i++)
  {
    c.update(i * 10000, 20000 + i * 1000000, i * 1000, 10000, true);
    if (i > 10)
    {
      EXPECT_GT(c.limit(), 0u);
      EXPECT_GE(double(c.limit()),
                adaptive_controller::MIN_SHARE * c.purge_rate() - 1);
    }
  }
}

TEST(AdaptiveThrottle, EngagesFromHalfTheTarget)
{
  EXPECT_FALSE(adaptive_controller::engaged(5000, 10000));
  EXPECT_TRUE(adaptive_controller::engaged(5001, 10000));
  EXPECT_FALSE(adaptive_controller::engaged(0, 10000));
  EXPECT_FALSE(adaptive_controller::engaged(0, 0));
  EXPECT_FALSE(adaptive_controller::engaged(1000000, 0));
  EXPECT_FALSE(adaptive_controller::engaged(UINT64_MAX, 0));
  /* no overflow */
  EXPECT_TRUE(adaptive_controller::engaged(UINT64_MAX, UINT64_MAX));
  EXPECT_FALSE(adaptive_controller::engaged(UINT64_MAX / 2, UINT64_MAX));
  EXPECT_TRUE(adaptive_controller::engaged(UINT64_MAX / 4 * 3, UINT64_MAX));

  /* update() follows engaged(): in force over half the target */
  driver d;
  for (int i= 0; i < 20; i++)
    EXPECT_EQ(0u, d.step(5000, 10000)) << "at half the target: no limit";
  EXPECT_FALSE(d.c.in_force());
  EXPECT_GT(d.step(5001, 10000), 0u);
  EXPECT_TRUE(d.c.in_force());
}

/* innodb_max_purge_lag is at most ULONG_MAX: 4294967295 on 32-bit
platforms and Windows, UINT64_MAX elsewhere */
TEST(AdaptiveThrottle, SaneAtTheLargestTargets)
{
  for (uint64_t target : {uint64_t{4294967295U}, UINT64_MAX})
  {
    driver d;
    /* the rate forms: 100,000/s */
    for (int i= 0; i < 20; i++)
      d.step(target / 4 * 3, target);
    ASSERT_NEAR(100000, d.c.purge_rate(), 1) << target;
    const double rate= d.c.purge_rate();
    /* under the target and engaged: at least purge's rate */
    uint64_t l= d.step(target / 4 * 3, target, true, true, 5000, 50000);
    EXPECT_TRUE(d.c.in_force()) << target;
    EXPECT_GE(double(l), rate) << target;
    EXPECT_LT(d.c.error(), 0) << target;
    EXPECT_GE(d.c.integral(), 0) << target;
    /* at the target: purge's rate plus the integral, which is bounded by
    purge's rate */
    l= d.step(target, target, true, true, 5000, 50000);
    EXPECT_TRUE(d.c.in_force()) << target;
    EXPECT_LE(d.c.integral(), rate) << target;
    EXPECT_NEAR(rate + d.c.integral(), double(l), 1) << target;
    if (target < UINT64_MAX)
    {
      /* over it: less than purge's rate, at least the floor */
      l= d.step(2 * target, target, true, true, 5000, 50000);
      EXPECT_TRUE(d.c.in_force()) << target;
      EXPECT_LT(double(l), rate) << target;
      EXPECT_GE(double(l), adaptive_controller::MIN_SHARE * rate - 1)
        << target;
      EXPECT_GT(d.c.error(), 0) << target;
      EXPECT_EQ(int64_t(target), d.c.error()) << target;
    }
    else
    {
      /* the largest history: x - T = 0 */
      EXPECT_EQ(0, d.c.error());
    }
  }
  /* error() saturates */
  driver d;
  d.step(UINT64_MAX, 1);
  EXPECT_EQ(INT64_MAX, d.c.error());
  d.step(0, UINT64_MAX);
  EXPECT_EQ(INT64_MIN, d.c.error());
}

/* The proportional law around the target, with a steady purge rate of
1,000/s: over purge's rate under the target, under it over the target,
tighter the further over. */
TEST(AdaptiveThrottle, PacesAroundTheTarget)
{
  driver d;
  auto limit_after= [&](uint64_t x)
  { return d.step(x, 10000, true, true, 100, 100000); };
  for (int i= 0; i < 20; i++)
    EXPECT_EQ(0u, limit_after(5000)) << "at half the target: not paced";
  ASSERT_NEAR(1000, d.c.purge_rate(), 1);
  EXPECT_GT(limit_after(9000), 1000u) << "under the target: over purge's rate";
  EXPECT_NEAR(1000, double(limit_after(10000)), 100) << "at it: purge's rate";
  const uint64_t at_10500= limit_after(10500);
  EXPECT_LT(at_10500, 1000u) << "over the target: under purge's rate";
  EXPECT_LT(limit_after(11000), at_10500) << "it tightens";
  EXPECT_GT(limit_after(5001), 1000u);
  EXPECT_GT(limit_after(5000), 1000u)
    << "on at half the target while connections wait: rising, not lifted";
  EXPECT_EQ(0u, d.step(5000, 10000, false, true, 100, 100000))
    << "off at half the target once nobody waits";
}

TEST(AdaptiveThrottle, DrainsWhileTheLawIsInForce)
{
  const unsigned wide= purge_throttle::rseg_drain::ADAPTIVE_WIDTH;
  driver d;
  d.step(5000, 10000);
  EXPECT_EQ(0u, d.c.drain_width());
  /* from the first update over half the target, before any limit */
  EXPECT_EQ(0u, d.step(20000, 10000));
  EXPECT_EQ(wide, d.c.drain_width());
  for (int i= 0; i < 10; i++)
    d.step(20000, 10000);
  ASSERT_GT(d.c.limit(), 0u);
  EXPECT_EQ(wide, d.c.drain_width());
  d.step(5001, 10000);
  EXPECT_EQ(wide, d.c.drain_width());
  d.step(5000, 10000, false);
  EXPECT_EQ(0u, d.c.drain_width());
  /* purge blocked by a read view: a segment whose last transaction the
  view still sees looks busy to every pass, so withholding it cannot help
  and would last as long as the view; the drain stops */
  d.step(20000, 10000);
  EXPECT_EQ(wide, d.c.drain_width());
  d.step(20000, 10000, true, false);
  EXPECT_EQ(0u, d.c.drain_width());
  /* and starts again once purge progresses */
  d.step(20000, 10000);
  EXPECT_EQ(wide, d.c.drain_width());
  d.step(20000, 0);
  EXPECT_EQ(0u, d.c.drain_width());
}

TEST(AdaptiveThrottle, NothingIsLimitedWithAnEmptyHistory)
{
  driver d;
  for (int i= 0; i < 20; i++)
    d.step(20000, 10000);
  ASSERT_GT(d.c.limit(), 0u);
  ASSERT_TRUE(d.c.in_force());
  /* the history emptied (within a measurement window) */
  EXPECT_EQ(0u, d.step(0, 10000));
  EXPECT_EQ(0u, d.c.limit());
  EXPECT_FALSE(d.c.in_force());
  EXPECT_EQ(0u, d.c.drain_width());
  EXPECT_EQ(0, d.c.integral());
  /* as purge_throttle_no_history() reports it */
  for (int i= 0; i < 20; i++)
    d.step(20000, 10000);
  ASSERT_GT(d.c.limit(), 0u);
  EXPECT_EQ(0u, d.c.update(0, 0, 0, 0, false));
  EXPECT_EQ(0u, d.c.limit());
  EXPECT_FALSE(d.c.in_force());
  EXPECT_EQ(0u, d.c.drain_width());
}

TEST(AdaptiveThrottle, TheOutputExcludesWhatAReadViewBlocks)
{
  EXPECT_EQ(70u, adaptive_controller::output(100, 30));
  EXPECT_EQ(0u, adaptive_controller::output(10, 30));
  EXPECT_EQ(0u, adaptive_controller::output(30, 30));
  EXPECT_EQ(100u, adaptive_controller::output(100, 0));
  EXPECT_EQ(UINT64_MAX, adaptive_controller::output(UINT64_MAX, 0));
  /* a history blocked but for half the target does not engage the law */
  EXPECT_FALSE(adaptive_controller::engaged
               (adaptive_controller::output(100000, 95000), 10000));
}

/* A view whose limit a committing transaction holds while its thread waits
for a CPU does not block purge; one that stays for TAU_RATE does. */
TEST(AdaptiveThrottle, AReadViewBlocksOnceItStays)
{
  const uint64_t tau= adaptive_controller::TAU_RATE;
  EXPECT_FALSE(adaptive_controller::view_holds(0));
  EXPECT_FALSE(adaptive_controller::view_holds(tau - 1));
  EXPECT_TRUE(adaptive_controller::view_holds(tau));
  EXPECT_TRUE(adaptive_controller::view_holds(60000000)) << "held 60 s";
}

/* Undo log truncation frees 70% of what purge parses: the history drains
slower than the purge rate that the law feeds forward.  Proportional alone
would settle where r + e / TAU = 0.7 r, 0.3 r TAU (12,000 here) over the
target; the integral takes up the difference. */
TEST(AdaptiveThrottle, TheIntegralRemovesABias)
{
  adaptive_controller c;
  constexpr double dt= 0.01, purge= 20000, natural= 100000, drains= 0.7;
  const uint64_t target= 10000;
  double x= 0, parsed= 0;
  uint64_t l= 0;
  std::vector<double> h;
  for (double t= 0; t < 120; t+= dt)
  {
    const bool binding= l && natural > double(l);
    l= c.update(uint64_t(t * 1e6) + 1, uint64_t(x), uint64_t(parsed), target,
                true, binding);
    const double rate= l ? std::min(natural, double(l)) : natural;
    const double p= std::min(x, purge * dt);
    parsed+= p;
    x+= rate * dt - drains * p;
    h.push_back(x);
  }
  const auto settled= tail(h, 3000);   /* the last 30 s */
  EXPECT_LE(*std::max_element(settled.begin(), settled.end()), 1.1 * target);
  EXPECT_GE(*std::min_element(settled.begin(), settled.end()), 0.9 * target);
  EXPECT_LT(c.integral(), 0);
  /* it carries the bias: -(1 - 0.7) r */
  EXPECT_NEAR(-(1 - drains) * purge, c.integral(), 0.1 * purge);
}

TEST(AdaptiveThrottle, AntiWindup)
{
  /* under the target, nobody waits: a higher limit would admit nobody
  more, the integral does not grow */
  driver d;
  for (int i= 0; i < 1000; i++)
    d.step(8000, 10000, false);
  ASSERT_TRUE(d.c.in_force());
  EXPECT_LE(d.c.integral(), 0);
  /* the same with connections waiting: it does */
  driver w;
  for (int i= 0; i < 1000; i++)
    w.step(8000, 10000, true);
  EXPECT_GT(w.c.integral(), 0);
  /* bounded by purge's rate */
  for (int i= 0; i < 200000; i++)
    w.step(8000, 10000, true);
  EXPECT_LE(w.c.integral(), w.c.purge_rate());
  EXPECT_NEAR(w.c.purge_rate(), w.c.integral(), 1);
  /* far over the target the limit is at its floor: the integral does not
  wind down below what the actuator follows */
  driver f;
  for (int i= 0; i < 1000; i++)
    f.step(1000000, 10000);
  EXPECT_EQ(uint64_t(adaptive_controller::MIN_SHARE * f.c.purge_rate()),
            f.c.limit());
  EXPECT_EQ(0, f.c.integral());
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
  /* unless it is in the batch that followed: that may take seconds, and
  proves that purge runs, whatever the age */
  EXPECT_TRUE(adaptive_controller::limit_applies(5000, stale, true, true));
  EXPECT_TRUE(adaptive_controller::limit_applies(5000, 100 * stale, true,
                                                 true));
  EXPECT_TRUE(adaptive_controller::limit_applies(5000, UINT64_MAX, true,
                                                 true));
  EXPECT_FALSE(adaptive_controller::limit_applies(5000, 0, false, true));
  EXPECT_FALSE(adaptive_controller::limit_applies(0, 0, true, true));
}

namespace
{
constexpr uint64_t ms= 1000000;  /* nanoseconds */
/* a commit rate limit at which tokens do not bind (a bucket of 5,000) */
constexpr uint64_t FAST= 100000;

/* A gate whose window starts at 10 */
void size_for_ten(admission_gate &g, uint64_t now)
{
  ASSERT_EQ(10u, g.resize(now, FAST, inside_for(10)));
}
} // namespace

TEST(AdmissionGate, LetsInAsManyAsTheWindowAllows)
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
  EXPECT_EQ(0u, g.token_wait(1000 * ms));
  uint64_t now= 1000 * ms;
  size_for_ten(g, now);
  EXPECT_EQ(0u, g.resize(now, 0));
  for (int i= 0; i < 100; i++)
  {
    EXPECT_TRUE(g.enter(now, t));
    EXPECT_EQ(0u, t.since);
  }
  EXPECT_EQ(0u, g.token_wait(now));
}

TEST(AdmissionGate, ALimitThatReturnsResumesItsWindow)
{
  admission_gate g;
  uint64_t now= 1000 * ms;
  size_for_ten(g, now);
  EXPECT_EQ(0u, g.resize(now, 0)) << "the limit is lifted";
  now+= 1000 * ms;
  EXPECT_EQ(10u, g.resize(now, FAST, 4))
    << "back in force: from where the last episode left it, not from the"
       " square root of those inside";
  admission_gate::ticket t[11];
  for (int i= 0; i < 10; i++)
    EXPECT_TRUE(g.enter(now, t[i]));
  EXPECT_FALSE(g.enter(now, t[10]));
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
  /* the window is full: a connection found no slot */
  admission_gate::ticket t[11];
  for (auto &x : t)
    g.enter(now, x);
  ASSERT_EQ(10u, g.running());
  for (auto &x : t)
    g.leave(now + 10 * ms, x);
  EXPECT_EQ(10u, g.resize(now + 10 * ms, FAST)) << "shorter than WINDOW";
  EXPECT_EQ(10u, g.resize(now + admission_gate::WINDOW, FAST))
    << "shorter than an interval of the window (TAU_RATE)";
  /* a full interval: the window moves to the other side of its dither,
  (1 + DITHER)^2 times as wide */
  const uint64_t interval= adaptive_controller::TAU_RATE * 1000;
  now+= admission_gate::WINDOW;
  for (auto &x : t)
    g.enter(now, x);
  const unsigned other= unsigned(std::ceil(std::sqrt(double(inside_for(10)))
                                           * (1 + purge_throttle::
                                              concurrency_window::DITHER)));
  EXPECT_EQ(other, g.resize(now + interval, FAST));
  for (auto &x : t)
    g.leave(now + interval, x);
  /* an interval that was never full tells nothing about the throughput:
  the window stays (within twice the most let in at once, 10) */
  now+= interval;
  for (int i= 0; i < 10; i++)
    ASSERT_TRUE(g.enter(now, t[i]));
  for (int i= 0; i < 10; i++)
    g.leave(now + 10 * ms, t[i]);
  EXPECT_EQ(other, g.resize(now + interval, FAST));
  now+= interval;
  ASSERT_TRUE(g.enter(now, t[0]));
  g.leave(now + 10 * ms, t[0]);
  EXPECT_EQ(2u, g.resize(now + admission_gate::WINDOW, FAST))
    << "one let in at most: a window of two binds again within a step";
}

TEST(AdmissionGate, TokensPaceASingleConnection)
{
  /* one connection that would commit 1,000 a second, at a limit of 100/s:
  a concurrency limit cannot bind, the tokens do */
  admission_gate g;
  const uint64_t start= 1000 * ms, rate= 100;
  ASSERT_EQ(1u, g.resize(start, rate, 1));
  /* a bucket WINDOW deep */
  const double depth= std::max(1.0, double(rate) *
                               double(admission_gate::WINDOW) * 1e-9);
  admission_gate::ticket t;
  unsigned admitted= 0;
  for (uint64_t now= start; now <= start + 1000 * ms; now+= ms)
  {
    g.leave(now, t);
    if (g.enter(now, t))
    {
      ASSERT_NE(0u, t.since);
      admitted++;
    }
    else
      ASSERT_GT(g.token_wait(now), 0u);
  }
  EXPECT_LE(double(admitted), double(rate) + depth + 1);
  EXPECT_GE(double(admitted), double(rate)) << "and not fewer";
  /* the time to wait for the next token is within one token's time */
  g.leave(start + 1001 * ms, t);
  while (g.enter(start + 1001 * ms, t))
    g.leave(start + 1001 * ms, t);
  const uint64_t wait= g.token_wait(start + 1001 * ms);
  EXPECT_GT(wait, 0u);
  EXPECT_LE(wait, 1000000000 / rate + 1);
  EXPECT_TRUE(g.enter(start + 1001 * ms + wait, t));
}

namespace
{
/* Feed a window full intervals of a server whose commit rate at w
connections inside is x(w), for `seconds`; return W's last value and its
range over the last half. */
template<class X>
std::vector<double> climb(purge_throttle::concurrency_window &w, X x,
                          double seconds)
{
  const double dt= double(adaptive_controller::WINDOW) * 1e-6;
  std::vector<double> sizes;
  for (double t= 0; t < seconds; t+= dt)
  {
    w.update(dt, x(w.size()) * dt, true, w.size());
    sizes.push_back(w.center());
  }
  return sizes;
}
} // namespace

TEST(AdmissionGate, TheWindowClimbsToTheThroughputPeak)
{
  /* throughput that rises linearly to a knee at 200 connections and falls
  past it, and one that rises as W^0.25 (connections queue on row locks,
  yet throughput still rises) to 500 and falls steeply past it */
  const auto knee= [](double n)
  { return n <= 200 ? 50 * n : 10000 / (1 + 0.5 * (n / 200 - 1)); };
  const auto slow= [](double n)
  { return n <= 500 ? 9000 * std::pow(n / 500, 0.25)
                    : 9000 / (1 + 2 * (n / 500 - 1)); };
  for (int i= 0; i < 2; i++)
  {
    SCOPED_TRACE(i ? "W^0.25" : "linear to a knee");
    const double peak= i ? 500 : 200;
    purge_throttle::concurrency_window w;
    w.start(100);
    ASSERT_EQ(10.0, w.center()) << "from the square root of those inside";
    const std::vector<double> sizes= i ? climb(w, slow, 60)
      : climb(w, knee, 60);
    /* from afar the centre doubles per decision, every three intervals:
    within six decisions (9 s) at half the peak, from a twentieth or a
    fiftieth of it */
    const size_t per= size_t(adaptive_controller::TAU_RATE /
                             adaptive_controller::WINDOW);
    EXPECT_GE(sizes.at(18 * per + 1), 0.5 * peak);
    /* then the peak lies between the sides of the dither */
    const auto tail= std::vector<double>(sizes.end() - 20 * per,
                                         sizes.end());
    const double d= purge_throttle::concurrency_window::DITHER;
    EXPECT_GE(*std::min_element(tail.begin(), tail.end()),
              peak / (1 + d) - 1);
    EXPECT_LE(*std::max_element(tail.begin(), tail.end()),
              peak * (1 + d) + 1);
    /* and either side commits at least 3/4 of the peak's rate */
    EXPECT_GT(w.throughput(), 0.75 * (i ? slow(peak) : knee(peak)));
  }
}

/* The transactions that run when the law comes into force miss the
connections whose commit waits for its log write: the window's start rises
with those that come to the gate, until its first move. */
TEST(AdmissionGate, TheWindowStartsFromThoseWhoWantIn)
{
  purge_throttle::concurrency_window w;
  w.start(1);
  EXPECT_EQ(1.0, w.center());
  w.start(256);
  EXPECT_EQ(16.0, w.center()) << "256 want in: from their square root";
  w.start(4);
  EXPECT_EQ(16.0, w.center()) << "fewer than the most that wanted in";
  /* three full intervals on a throughput that rises with W: it moves up */
  const double dt= double(adaptive_controller::WINDOW) * 1e-6;
  const auto rising= [](double n) { return 100 * n; };
  while (w.center() == 16.0)
    w.update(dt, rising(w.size()) * dt, true, w.size());
  const double moved= w.center();
  EXPECT_GT(moved, 16.0);
  w.start(1000000);
  EXPECT_EQ(moved, w.center())
    << "once it has moved, X(W) measured about it holds: no restart";
}

TEST(AdmissionGate, TheWindowKeepsWhereFewerDoAsWell)
{
  /* a server saturated from 20 connections: more add nothing */
  const auto flat= [](double n) { return 1000 * std::min(n, 20.0); };
  purge_throttle::concurrency_window w;
  w.start(10000);
  ASSERT_EQ(100.0, w.center());
  const std::vector<double> sizes= climb(w, flat, 60);
  const size_t per= size_t(adaptive_controller::TAU_RATE /
                           adaptive_controller::WINDOW);
  const auto tail= std::vector<double>(sizes.end() - 20 * per, sizes.end());
  const double d= purge_throttle::concurrency_window::DITHER;
  EXPECT_LE(*std::max_element(tail.begin(), tail.end()), 20 * (1 + d) * (1 + d))
    << "a flat throughput is no reason to let more in: the centre falls"
       " until the lower side of the dither no longer saturates it";
  EXPECT_GE(*std::min_element(tail.begin(), tail.end()), 20 / (1 + d) - 1)
    << "nor to let fewer in than saturate it, by more than the dither";
}

/* A commit rate that drifts while the window dithers (the connections
that came in before the law leave the rows to the others; the load
changes) is not read as the effect of W: on a throughput saturated from 50
connections, a rate that rises or falls by 10% a second does not carry the
window off in either direction. */
TEST(AdmissionGate, TheWindowIgnoresADrift)
{
  const double dt= double(adaptive_controller::WINDOW) * 1e-6;
  const double d= purge_throttle::concurrency_window::DITHER;
  for (double drift : {0.0, 0.1, -0.1})
  {
    purge_throttle::concurrency_window w;
    w.start(2500);
    double lo= 1e9, hi= 0, t= 0;
    for (; t < 30; t+= dt)
    {
      const double n= w.size();
      const double x= 1000 * std::min(n, 50.0) *
        std::max(0.1, 1 + drift * t);
      w.update(dt, x * dt, true, n);
      if (t > 10)
      {
        lo= std::min(lo, w.center());
        hi= std::max(hi, w.center());
      }
    }
    /* the centre stays where the lower side of the dither saturates the
    server (50 (1 + DITHER)), within a step of the dither */
    EXPECT_GE(lo, 50 / (1 + d)) << "drift " << drift;
    EXPECT_LE(hi, 50 * (1 + d) * (1 + d)) << "drift " << drift;
  }
}

TEST(AdmissionGate, TheWindowMovesOnlyOnFullIntervals)
{
  const double dt= double(adaptive_controller::WINDOW) * 1e-6;
  const double d= purge_throttle::concurrency_window::DITHER;
  purge_throttle::concurrency_window full, idle;
  full.start(100);
  idle.start(100);
  ASSERT_EQ(10 / (1 + d), full.size()) << "the lower side first";
  /* one interval is TAU_RATE: W does not move within one */
  const int per= int(adaptive_controller::TAU_RATE /
                     adaptive_controller::WINDOW);
  for (int i= 1; i < per; i++)
  {
    full.update(dt, 10 * full.size() * dt, true, full.size());
    ASSERT_EQ(10 / (1 + d), full.size()) << i;
  }
  for (int k= 0; k < 5; k++)
    for (int i= 0; i < per; i++)
    {
      full.update(dt, 10 * full.size() * dt, true, full.size());
      /* the commit rate bound, not the window: X tells nothing of W */
      idle.update(dt, 10 * idle.size() * dt, false, idle.size());
      EXPECT_EQ(10 / (1 + d), idle.size()) << k;
      EXPECT_EQ(10.0, idle.center()) << k;
      if (k == 0)
        EXPECT_EQ(10 * (1 + d), full.size()) << "the other side";
    }
  /* three full intervals, at sides -, +, -, found X rising with W: the
  centre doubled; two more intervals wait for the third */
  EXPECT_DOUBLE_EQ(20.0, full.center());
  /* a later episode resumes where the last one left it once the window
  has moved; before, its start rises with those that want in */
  full.start(1000000);
  EXPECT_DOUBLE_EQ(20.0, full.center());
  idle.start(1000000);
  EXPECT_EQ(1000.0, idle.center());
}

/* The connections that came in before the law stay on the rows until
they commit, and set the rate of those that the gate lets in beside them:
while they are as many as W, a flat rate is theirs, not X(W), and does not
move the window; once they are fewer, it does. */
TEST(AdmissionGate, TheWindowWaitsForTheCrowdToLeave)
{
  const double dt= double(adaptive_controller::WINDOW) * 1e-6;
  const auto flat= [](double) { return 1000.0; };
  purge_throttle::concurrency_window w;
  w.start(10000);
  ASSERT_EQ(100.0, w.center());
  double t= 0;
  for (; t < 10; t+= dt)
  {
    /* crowded in one measurement of each interval only */
    const bool clear= std::fmod(t, 0.5) > dt;
    w.update(dt, flat(w.size()) * dt, true, w.size(), clear);
    ASSERT_EQ(100.0, w.center()) << t;
  }
  EXPECT_EQ(0.0, w.throughput()) << "nothing measured";
  /* an episode begins with the crowd inside and few at the gate yet: the
  window is not full, but the crowd wants in too, so it keeps its size */
  const double size= w.size();
  w.update(dt, 2 * dt, false, 2, false);
  EXPECT_EQ(size, w.size());
  w.update(dt, 2 * dt, false, 2, true);
  EXPECT_EQ(4.0, w.size()) << "clear and not full: within twice the most";
  w.start(10000);
  ASSERT_EQ(100.0, w.center()) << "not moved yet: the start rises again";
  for (; t < 12; t+= dt)
    w.update(dt, flat(w.size()) * dt, true, w.size());
  EXPECT_LT(w.center(), 100.0) << "clear: a flat rate moves it down";
}

/* admission_gate: an interval is clear of the crowd only if every
resize() in it, and at either end, saw fewer transactions without a ticket
than the window, however many resizes follow the one that saw them. */
TEST(AdmissionGate, ACrowdAtAnyResizeVoidsTheInterval)
{
  const uint64_t interval= adaptive_controller::TAU_RATE * 1000;
  const uint64_t step= admission_gate::WINDOW;
  for (int crowded_at= -1; crowded_at < 3; crowded_at++)
  {
    SCOPED_TRACE(crowded_at);
    admission_gate g;
    uint64_t now= 1000 * ms;
    const unsigned first= g.resize(now, FAST, 10000);
    ASSERT_EQ(unsigned(std::ceil(100 / (1 + purge_throttle::
                                        concurrency_window::DITHER))),
              first);
    /* full, with more commits than the window, and X rising with W: the
    window fills every measurement */
    std::vector<admission_gate::ticket> t(1000);
    unsigned w= first;
    for (int k= 0; k < 3; k++)
    {
      for (uint64_t at= 0; at < interval; at+= step)
      {
        for (auto &x : t)
          g.enter(now + at, x);
        for (auto &x : t)
          g.leave(now + at + step / 2, x);
        /* the coordinator publishes several times a measurement: a
        crowd at the first of them counts however many follow */
        const bool crowd= crowded_at == k && at == interval / 2;
        w= g.resize(now + at + step / 4, FAST, 0, crowd ? w : first / 2);
        w= g.resize(now + at + step / 2, FAST, 0, first / 2);
        w= g.resize(now + at + step, FAST, 0, first / 2);
      }
      now+= interval;
    }
    if (crowded_at < 0)
      EXPECT_GT(w, 2 * first) << "three clear full intervals: up";
    else
      EXPECT_EQ(first, w) << "a crowd in one: the three start again";
  }
}

/* Transactions that outlast TAU_RATE (row locks held by connections that
came in before the law): an interval closes only once as many commit as
the window holds, so that X is not read from an interval in which the
window's transactions had not yet turned over. */
TEST(AdmissionGate, TheWindowWaitsForATurnover)
{
  const double dt= double(adaptive_controller::WINDOW) * 1e-6;
  purge_throttle::concurrency_window w;
  w.start(10000);
  const double first= w.size();
  ASSERT_EQ(100 / (1 + purge_throttle::concurrency_window::DITHER), first);
  /* 60 commits a second: 91 take a second and a half */
  double t= 0;
  for (; t < 1.5 - dt / 2; t+= dt)
  {
    w.update(dt, 60 * dt, true, first);
    ASSERT_EQ(first, w.size()) << t;
  }
  for (; t < 2; t+= dt)
    w.update(dt, 60 * dt, true, first);
  EXPECT_NE(first, w.size()) << "one turnover: the other side";
  EXPECT_NEAR(60, w.throughput(), 1e-6);
}

TEST(AdmissionGate, TicketsBeyondTheTableAreCounted)
{
  constexpr unsigned N= admission_gate::MAX_SLOTS + 5;
  admission_gate g;
  g.track();
  std::vector<admission_gate::ticket> t(N);
  const uint64_t now= 1000 * ms;
  for (auto &x : t)
    ASSERT_TRUE(g.enter(now, x));
  EXPECT_EQ(N, g.running());
  for (unsigned i= admission_gate::MAX_SLOTS; i < N; i++)
  {
    EXPECT_EQ(unsigned{admission_gate::MAX_SLOTS}, t[i].slot);
    EXPECT_NE(0u, t[i].since);
  }
  /* given back, however late: they never expire */
  for (auto &x : t)
    EXPECT_TRUE(g.leave(now + 10 * admission_gate::LEASE, x));
  EXPECT_EQ(0u, g.running());
  /* and once only */
  EXPECT_FALSE(g.leave(now, t[N - 1]));
  EXPECT_EQ(0u, g.running());

  /* under a limit as large: the tracked tickets expire, the counted ones
  stay out until given back */
  admission_gate h;
  ASSERT_EQ(N, h.resize(now, 1000000000, inside_for(N)));
  for (auto &x : t)
    ASSERT_TRUE(h.enter(now, x));
  EXPECT_EQ(N, h.running());
  admission_gate::ticket late;
  EXPECT_TRUE(h.enter(now + 2 * admission_gate::LEASE, late));
  EXPECT_EQ(6u, h.running()) << "the 5 counted ones and the late one";
  for (unsigned i= 0; i < admission_gate::MAX_SLOTS; i++)
    EXPECT_FALSE(h.leave(now + 2 * admission_gate::LEASE, t[i])) << i;
  for (unsigned i= admission_gate::MAX_SLOTS; i < N; i++)
    EXPECT_TRUE(h.leave(now + 2 * admission_gate::LEASE, t[i])) << i;
  EXPECT_EQ(1u, h.running());
  EXPECT_TRUE(h.leave(now + 2 * admission_gate::LEASE, late));
  EXPECT_EQ(0u, h.running());
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
  double admitted_at= 0;
  auto admit_waiters= [&](double t)
  {
    while (!queue.empty() && gate.enter(ns(t), ticket[queue.front()]))
    {
      admitted_at= t;
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
        /* gate::give_up_at(): the first waiter goes on MAX_WAIT after it
        queued or after the gate last let someone in (or a waiter gave up),
        whichever is later */
        if (queue.front() != i ||
            t - std::max(queued_at[i], admitted_at) <
            1e-9 * admission_gate::MAX_WAIT)
          continue;
        queue.pop_front();
        queued_at[i]= -1;                  /* waited long enough: go on */
        admitted_at= t;                    /* gate::gave_up() */
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
      {
        if (c.limit())
          admitted_at= t;
        work[i]= trx_work(rng);
      }
    }
    /* the first waiter polls once token_wait() has passed: the commit rate
    lets it in as time passes, not only when someone leaves */
    if (!queue.empty() && !gate.token_wait(ns(t)))
      admit_waiters(t);
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
      gate.resize(ns(t), c.update(uint64_t(t * 1e6) + 1,
                                  adaptive_controller::output
                                  (uint64_t(history), 0),
                                  uint64_t(parsed), target, true,
                                  !queue.empty(), gate.rate_bound()),
                  uint64_t(threads - int(queue.size())));
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
  /* no stop: every 0.1 s commits at least the law's floor (MIN_SHARE of
  purge's rate, at least 1,600/s here), and at most one 0.1 s in a hundred
  less than a quarter of the mean (the law cuts the rate to its floor for
  a moment where the history peaks over the target before a truncation
  step: one such 0.1 s at 0.12 of the mean in this run) */
  EXPECT_GE(*std::min_element(commits.begin(), commits.end()),
            0.1 * adaptive_controller::MIN_SHARE * 1600);
  EXPECT_LE(std::count_if(commits.begin(), commits.end(),
                          [&](double c) { return c < 0.25 * m; }),
            long(commits.size() / 100)) << "no stop and go";
  /* purge at full DML rate parses 1,600/s, alone 16,000/s; they balance
  near 4,150/s (= 16000 * (1 - 0.9 * x / 5000)) */
  const double balance= 16000 / (1 + 0.9 * 16000 / 5000);
  EXPECT_GE(m * 10, 0.95 * balance);
  /* the history falls every 0.5 s by what purge parsed in between */
  EXPECT_LE(pct(tail(r.history, 600), 95), 1.1 * target + 0.5 * balance);
  /* the gate holds the rate with a window near the server's saturation
  point (max_tps * trx_s = 20), not 256: past it more connections commit
  no more, which is no gain to the window (concurrency_window), and one
  that is not full stays within twice the most let in at once */
  const auto k= tail(r.concurrency, 600);
  std::vector<double> kd(k.begin(), k.end());
  EXPECT_LE(pct(kd, 50), 30);
  EXPECT_LE(pct(kd, 95), 2 * 20) << "not far past the saturation point";
  EXPECT_GE(pct(kd, 5), 5) << "and not by stopping nearly all of them";
}
