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
   n / t_trx (n: the threads, at most the law's bound on open transactions)
   or at the controller's limit, whichever is lower; purge
   consuming history at a capacity of P transactions per second, optionally
   less while DML keeps the CPUs busy; the controller updated every 10 ms,
   as the purge coordinator's batches do;
 - a saturated server, thread by thread (SaturatedServer below). */

#include "trx0adaptive.h"
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <random>
#include <thread>
#include <vector>

using purge_throttle::adaptive_controller;
using purge_throttle::admission_gate;
using purge_throttle::open_bound;

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
  double free_rate= natural;
  for (double t= 0; t < seconds; t+= dt)
  {
    const bool stalled= t >= w.stall_from && t < w.stall_to;
    /* the rate limit held connections back while the last limit held DML
    below what the threads let in would commit */
    const bool rate_bound= l && free_rate > double(l);
    /* what purge parsed and the history does not show yet waits for
    truncation: the part that the bound on open transactions answers to */
    l= c.update(uint64_t(t * 1e6) + 1, adaptive_controller::output
                (uint64_t(h), 0), uint64_t(purged), uint64_t(parsed),
                target, !stalled, uint64_t(w.threads), rate_bound);
    const unsigned bound= c.concurrency();
    free_rate= bound && bound < w.threads
      ? double(bound) / (w.trx_us * 1e-6) : natural;
    const double rate= l ? std::min(free_rate, double(l)) : free_rate;
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
    EXPECT_EQ(0u, c.update(i * 10000, i * 100000, i * 50000, i * 1000, 0,
                           true, 256, true));
    EXPECT_FALSE(c.in_force());
    EXPECT_EQ(0u, c.concurrency());
    EXPECT_EQ(0u, c.drain_width());
  }
}

namespace
{
/** TAU, seconds */
const double TAU_S= double(adaptive_controller::TAU) * 1e-6;

/* Evaluates a controller every dt_us while purge parses per_step
transactions per step (100,000/s by default); none of the history waits
for truncation unless `pending` says so, and 256 connections want in. */
struct driver
{
  adaptive_controller c;
  uint64_t now= 0, purged= 0;
  uint64_t step(uint64_t x, uint64_t target, bool rate_bound= true,
                bool progress= true, uint64_t per_step= 1000,
                uint64_t dt_us= 10000, uint64_t pending= 0,
                uint64_t want= 256)
  {
    now+= dt_us;
    if (progress)
      purged+= per_step;
    return c.update(now, x, pending, purged, target, progress, want,
                    rate_bound);
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
    c.update(i * 10000, 20000 + i * 1000000, 0, i * 1000, 10000, true, 256,
             true);
    if (i > 10)
    {
      EXPECT_GT(c.limit(), 0u);
      EXPECT_GE(double(c.limit()),
                adaptive_controller::MIN_SHARE * c.purge_rate() - 1);
    }
  }
}

TEST(AdaptiveThrottle, ACommitWakesPurgeWithinWhatCommitsInAPollOfTheTarget)
{
  /* r POLL_MAX: 7,000 a second commit 700 in 0.1 s */
  EXPECT_EQ(700u, adaptive_controller::wake_margin(7000));
  EXPECT_EQ(0u, adaptive_controller::wake_margin(0));
  EXPECT_EQ(~uint64_t{0}, adaptive_controller::wake_margin(1e30));
  /* that under T */
  EXPECT_EQ(9300u, adaptive_controller::wake_level(10000, 700));
  /* purge's rate not yet measured: at the target */
  EXPECT_EQ(10000u, adaptive_controller::wake_level(10000, 0));
  /* never under where the law comes into force */
  EXPECT_EQ(500u, adaptive_controller::wake_level(1000, 1000));
  EXPECT_EQ(5000u, adaptive_controller::wake_level(10000, 100000000));
  EXPECT_FALSE(adaptive_controller::engaged
               (adaptive_controller::wake_level(10000, 100000000), 10000));
  /* no overflow */
  EXPECT_EQ(UINT64_MAX, adaptive_controller::wake_level(UINT64_MAX, 0));
  EXPECT_GE(adaptive_controller::wake_level
            (UINT64_MAX, adaptive_controller::wake_margin(1e30)),
            UINT64_MAX / 2);
  EXPECT_EQ(0u, adaptive_controller::wake_level(0, 700));
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
  /* the law is in force exactly while x > ENGAGE T: at half the target it
  is off even while the rate limit holds connections back; connections
  that wait do not keep it on */
  EXPECT_EQ(0u, limit_after(5000))
    << "off at half the target, however many wait";
  EXPECT_FALSE(d.c.in_force());
  EXPECT_EQ(0u, d.step(5000, 10000, false, true, 100, 100000))
    << "and while nobody waits";
}

/* The drain of rollback segments answers to the truncation-pending part:
in force from p + open > S, and while the bound is; the bound from p
grows back once p is under ENGAGE S and lapses back at want. */
TEST(AdaptiveThrottle, DrainsWithTheBound)
{
  const unsigned wide= purge_throttle::adaptive_controller::DRAIN_WIDTH;
  const uint64_t T= 10000;
  driver d;
  d.step(5000, T);
  EXPECT_EQ(0u, d.c.drain_width());
  /* over the target, but all of it unparsed: purge, not truncation, is
  behind; p = 0 is under its share, no drain, no bound */
  for (int i= 0; i < 10; i++)
    d.step(2 * T, T, true, true, 1000, 10000, 0);
  ASSERT_GT(d.c.limit(), 0u);
  EXPECT_EQ(0u, d.c.drain_width());
  EXPECT_EQ(0u, d.c.concurrency());
  /* p over half its share (S = T, u = 0), under it: neither */
  d.step(3 * T / 5, T, true, true, 1000, 10000, 3 * T / 5);
  EXPECT_EQ(0u, d.c.drain_width());
  EXPECT_EQ(0u, d.c.concurrency());
  /* the same p with 5,000 transactions open: they join p as they commit,
  and truncation frees no segment they reference before they end: the
  drain, not the bound */
  d.step(3 * T / 5, T, true, true, 1000, 10000, 3 * T / 5, 5000);
  EXPECT_EQ(wide, d.c.drain_width());
  EXPECT_EQ(0u, d.c.concurrency());
  d.step(3 * T / 5, T, true, true, 1000, 10000, 3 * T / 5);
  EXPECT_EQ(0u, d.c.drain_width());
  /* p over its share: the drain and the bound */
  d.step(2 * T, T, true, true, 1000, 10000, 2 * T);
  EXPECT_EQ(wide, d.c.drain_width());
  EXPECT_GT(d.c.concurrency(), 0u);
  /* between half its share and its share: both stay */
  d.step(3 * T / 4, T, true, true, 1000, 10000, 3 * T / 4);
  EXPECT_EQ(wide, d.c.drain_width());
  EXPECT_GT(d.c.concurrency(), 0u);
  /* truncation frees p to a quarter of T: the bound, still at want,
  lapses, and the drain with it, as the rate does under half the target
  (a bound that shrank grows back first: AnEmptyHistoryEndsNoBoundAtOnce) */
  d.step(T / 4, T, true, true, 1000, 10000, T / 4);
  EXPECT_EQ(0u, d.c.limit());
  EXPECT_EQ(0u, d.c.concurrency());
  EXPECT_EQ(0u, d.c.drain_width());
  /* purge blocked by a read view: a segment whose last transaction the
  view still sees looks busy to every pass, so withholding it cannot help
  and would last as long as the view; the drain stops */
  d.step(2 * T, T, true, true, 1000, 10000, 2 * T);
  EXPECT_EQ(wide, d.c.drain_width());
  d.step(2 * T, T, true, false, 0, 10000, 2 * T);
  EXPECT_EQ(0u, d.c.drain_width());
  /* and starts again once purge progresses */
  d.step(2 * T, T, true, true, 1000, 10000, 2 * T);
  EXPECT_EQ(wide, d.c.drain_width());
  d.step(2 * T, 0, true, true, 1000, 10000, 2 * T);
  EXPECT_EQ(0u, d.c.drain_width());
}

namespace {
/** Truncation has freed p (x = p = 0): a bound in force grows back at its
fastest, by e per TAU (never a step up, which would let in at once the
crowd that waited), and it and the drain lapse once it is back at want. */
void expect_grows_back(driver &d, uint64_t T, uint64_t per_step,
                       uint64_t want)
{
  const uint64_t step_us= 10000;
  const double dt= double(step_us) * 1e-6;
  unsigned w= d.c.concurrency();
  /* from 1 to want at e per TAU, and a step to lapse */
  const int most= 2 + int(std::ceil(std::log(double(want)) * TAU_S / dt));
  int steps= 0;
  for (; steps < most && (d.c.concurrency() || d.c.drain_width()); steps++)
  {
    d.step(0, T, true, true, per_step, step_us, 0, want);
    const unsigned now= d.c.concurrency();
    if (now && w)
    {
      EXPECT_GE(now, w) << "grows back";
      EXPECT_LE(double(now), std::ceil(double(w) * std::exp(dt / TAU_S)))
        << "no faster than e per TAU";
    }
    else if (!now && w)
    {
      EXPECT_GE(double(w) * std::exp(dt / TAU_S), double(want))
        << "lapses only back at want";
    }
    w= now;
  }
  EXPECT_LT(steps, most);
  EXPECT_EQ(0u, d.c.drain_width());
  EXPECT_EQ(0u, d.c.concurrency());
}

/** saw_tooth()'s target and the connections that want in */
constexpr uint64_t SAW_T= 10000, SAW_WANT= 100;
/** A saw-tooth of the truncation-pending history p (u = 0): purge parses
30 transactions per 10 ms step (3,000/s), SAW_WANT connections want in,
and truncation frees all of p at once, lag_steps after an actuator came in.
@param bound  whether the bound (else the drain) is the actuator whose
              coming in starts the lag
@param at     p when that actuator came in, in each of three teeth */
void saw_tooth(bool bound, int lag_steps, uint64_t (&at)[3])
{
  const uint64_t T= SAW_T, per_step= 30, want= SAW_WANT;
  const unsigned wide= adaptive_controller::DRAIN_WIDTH;
  driver d;
  uint64_t p= 0;
  for (int tooth= 0; tooth < 3; tooth++)
  {
    int freed_in= -1;
    for (int i= 0; i < 2000 && freed_in; i++)
    {
      d.step(p, T, true, true, per_step, 10000, p, want);
      if (freed_in < 0 && (bound ? d.c.concurrency() : d.c.drain_width()))
      {
        if (!bound)
        {
          EXPECT_EQ(wide, d.c.drain_width());
        }
        at[tooth]= p;
        freed_in= lag_steps;
      }
      else if (freed_in > 0)
        freed_in--;
      p+= per_step;
    }
    ASSERT_EQ(0, freed_in) << "tooth " << tooth;
    p= 0;
    expect_grows_back(d, T, per_step, want);
  }
}
} // namespace

/* The drain comes in early by how far p rose after it last came in: p
peaks then, not when the drain comes in.  Truncation frees p only 1 s
after the drain comes in. */
TEST(AdaptiveThrottle, TheDrainLeadsByItsLastRise)
{
  const uint64_t T= SAW_T, want= SAW_WANT;
  uint64_t at[3]= {0, 0, 0};
  saw_tooth(false, 100, at);
  /* the first tooth: the transactions open are all that is known to join
  p before the drain frees it; p then peaks 30% over its share */
  EXPECT_NEAR(double(T - want), double(at[0]), 60.0);
  /* later: by the 3,000 that p rose over the 1 s after it came in */
  EXPECT_NEAR(double(T - 3000), double(at[1]), 0.05 * T);
  EXPECT_NEAR(double(at[1]), double(at[2]), 60.0);
  /* so that p peaks near its share, not 30% over it */
  EXPECT_LT(at[2] + 3000, T + T / 20);
}

/* The same for the bound: where truncation frees p only 1 s after the
bound comes in (the drain alone frees nothing: a crowd on hot rows keeps
every segment referenced), the bound comes in early by what p gains
over that second; where it frees p at once, the bound acts at p's share. */
TEST(AdaptiveThrottle, TheBoundLeadsByItsLastRise)
{
  const uint64_t T= SAW_T;
  uint64_t at[3]= {0, 0, 0};
  saw_tooth(true, 100, at);
  EXPECT_NEAR(double(T), double(at[0]), 60.0);
  EXPECT_NEAR(double(T - 3000), double(at[1]), 0.05 * T);
  EXPECT_LT(at[2] + 3000, T + T / 20);
  saw_tooth(true, 1, at);
  EXPECT_NEAR(double(T), double(at[0]), 60.0);
  EXPECT_NEAR(double(T), double(at[2]), 60.0) << "no rise, no lead";
}

/* The lead is the rise that p last made, not a rate times how long it
rose: the bound changes purge's rate.  Here p rises at 500/s for 6 s
after W came in; C lost meanwhile, so W lapses only back at want.  Then
purge runs at 2,500/s and truncation keeps p near nothing: 2,500/s over
those 6 s is more than p's share, and a lead scaled by the rate after the
rise would keep W shrinking at p = 0, with every connection waiting. */
TEST(AdaptiveThrottle, ALeadNeverHoldsAnEmptyHistory)
{
  const uint64_t T= 10000, want= 4096, u= 100;
  driver d;
  uint64_t p= 0;
  unsigned w= 0;
  for (int i= 0; i < 10000 && !w; i++, p+= 5)
  {
    d.step(u + p, T, true, true, 5, 10000, p, want);
    w= d.c.concurrency();
  }
  ASSERT_GT(w, 0u) << "W came in";
  for (int i= 0; i < 600; i++, p+= 5)
    d.step(u + p, T, true, true, 5, 10000, p, want);
  ASSERT_LT(d.c.concurrency(), w) << "W shrank while p rose";
  /* truncation frees p; purge parses 2,500/s, and p stays near nothing */
  int lapsed_in= -1;
  for (int i= 0; i < 3000 && lapsed_in < 0; i++)
  {
    d.step(u + 10, T, true, true, 25, 10000, 10, want);
    if (!d.c.concurrency())
      lapsed_in= i;
  }
  /* from at most e per TAU back to want: ln(4096) TAU, 17 s, and a
  little more where the room for u's trend is not yet measured */
  EXPECT_GE(lapsed_in, 0) << "W lapsed";
  EXPECT_LT(lapsed_in, 2000);
  EXPECT_EQ(0u, d.c.drain_width());
  /* the next rise: W comes in ahead of p's share by the rise measured
  (3,000), not by 2,500/s over 6 s */
  p= 0;
  w= 0;
  for (int i= 0; i < 10000 && !w; i++, p+= 5)
  {
    d.step(u + p, T, true, true, 5, 10000, p, want);
    w= d.c.concurrency();
  }
  EXPECT_GT(p, T / 2);
  /* at S = T - u less that rise, within a step of the gate */
  EXPECT_NEAR(double(T - u - 3000), double(p), 60.0);
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
  EXPECT_EQ(0u, d.c.update(0, 0, 0, 0, 0, false, 0, false));
  EXPECT_EQ(0u, d.c.concurrency());
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
    /* the bias is history that the bound on open transactions does not
    free either: none of it is reported as waiting for truncation */
    const bool rate_bound= l && natural > double(l);
    l= c.update(uint64_t(t * 1e6) + 1, uint64_t(x), 0, uint64_t(parsed),
                target, true, 256, rate_bound);
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

/* Far over the target the rate is at its floor; it stays there while
the history falls, until it is back at the target (r, measured while the
writers are held back, is what purge parses with the CPUs to itself);
back under the target it answers at once, with no integral wound down
meanwhile.  Purge parses 100,000 a second: the floor is 5,000. */
TEST(AdaptiveThrottle, AtItsFloorOverTheTargetTheRateStays)
{
  driver d;
  const auto floor= [&] {
    return uint64_t(adaptive_controller::MIN_SHARE * d.c.purge_rate()); };
  /* a backlog after a read view: the limit reaches its floor */
  for (int i= 0; i < 100; i++)
    d.step(300000, 10000);
  ASSERT_EQ(floor(), d.c.limit());
  /* purge brings it down towards the target: the proportional term
  alone would leave the floor under 200,000 */
  for (uint64_t x= 300000; x > 10000; x-= 2000)
    EXPECT_EQ(floor(), d.step(x, 10000)) << "over the target, at " << x;
  EXPECT_GE(d.c.integral(), 0) << "no wind-down while the rate is held";
  EXPECT_GE(double(d.step(9000, 10000)), d.c.purge_rate());
  /* the proportional term, not a hold, where the floor was not reached */
  driver p;
  for (int i= 0; i < 100; i++)
    p.step(60000, 10000);
  const uint64_t high= p.c.limit();
  ASSERT_GT(high, floor());
  for (uint64_t x= 60000; x > 12000; x-= 2000)
    p.step(x, 10000);
  EXPECT_GT(p.c.limit(), high) << "rises as the history falls";
}

/* Of an excess over the target the rate cuts for what it drains: the
unparsed part and the open transactions.  History that waits for undo
log truncation is the bound's and the drain's; cutting admissions for it
held writers back while purge kept up. */
TEST(AdaptiveThrottle, TheRateCutsOnlyForWhatItDrains)
{
  constexpr uint64_t T= 10000, x= 20000, open= 100;
  const double tau= double(adaptive_controller::TAU) * 1e-6;
  const auto limit_at= [&](uint64_t pending, uint64_t n_open) {
    adaptive_controller c;
    uint64_t now= 0, purged= 0, limit= 0;
    /* purge parses 100,000 a second */
    for (int i= 0; i < 100; i++)
      limit= c.update(now+= 10000, x, pending, purged+= 1000, T, true,
                      256, true, n_open);
    EXPECT_NEAR(100000, c.purge_rate(), 1);
    return limit;
  };
  /* all of it unparsed: the rate cuts for the whole excess */
  const uint64_t unparsed= limit_at(0, open);
  EXPECT_LE(double(unparsed), 100000 - double(x - T) / tau);
  /* 19,000 of it waits for truncation: the rate cuts for the 1,000
  unparsed and the 100 open only */
  const uint64_t waits= limit_at(19000, open);
  EXPECT_GT(waits, unparsed);
  EXPECT_LT(waits, 100000u) << "over the target it still cuts";
  EXPECT_GE(double(waits), 100000 - 2 * double(1000 + open) / tau)
    << "no cut for what waits for truncation";
  /* nothing unparsed, nothing open: purge's rate, no cut */
  EXPECT_NEAR(100000, double(limit_at(x, 0)), 1000);
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

/* A gate bounded at 10 transactions at once */
void size_for_ten(admission_gate &g, uint64_t now)
{
  ASSERT_EQ(10u, g.resize(now, FAST, 10));
}
} // namespace

TEST(AdmissionGate, LetsInAsManyAsTheBoundAllows)
{
  admission_gate g;
  uint64_t now= 1000 * ms;
  size_for_ten(g, now);
  admission_gate::ticket t[11];
  for (int i= 0; i < 10; i++)
    EXPECT_TRUE(g.enter(now, &t[i]));
  EXPECT_FALSE(g.enter(now, &t[10]));
  EXPECT_FALSE(t[10].held);
  EXPECT_TRUE(g.leave(t[3]));
  EXPECT_FALSE(t[3].held);
  EXPECT_FALSE(g.leave(t[3])) << "a ticket is given back once";
  EXPECT_TRUE(g.enter(now + ms, &t[10])) << "a commit lets the next one in";
  EXPECT_EQ(10u, g.running());
}

TEST(AdmissionGate, NoLimitNoWait)
{
  admission_gate g;
  admission_gate::ticket t;
  EXPECT_TRUE(g.enter(1000 * ms, &t));
  EXPECT_FALSE(t.held) << "no limit: no ticket to give back";
  EXPECT_EQ(0u, g.token_wait(1000 * ms));
  uint64_t now= 1000 * ms;
  size_for_ten(g, now);
  EXPECT_EQ(0u, g.resize(now, 0));
  for (int i= 0; i < 100; i++)
  {
    EXPECT_TRUE(g.enter(now, &t));
    EXPECT_FALSE(t.held);
  }
  EXPECT_EQ(0u, g.token_wait(now));
}

/* The gate measures nothing: its bound is the caller's, whatever it was
before, and a rate without a bound lets any number in. */
TEST(AdmissionGate, TheBoundIsTheCallers)
{
  admission_gate g;
  uint64_t now= 1000 * ms;
  size_for_ten(g, now);
  EXPECT_EQ(0u, g.resize(now, 0)) << "the limit is lifted";
  EXPECT_EQ(10u, g.resize(now, 0, 10)) << "a bound without a rate";
  EXPECT_EQ(10u, g.concurrency());
  EXPECT_EQ(0u, g.resize(now, 0, 0)) << "neither: the gate opens";
  EXPECT_EQ(0u, g.concurrency());
  now+= 1000 * ms;
  EXPECT_EQ(4u, g.resize(now, FAST, 4))
    << "back in force at the bound given, not where it was";
  admission_gate::ticket t[11];
  for (int i= 0; i < 4; i++)
    EXPECT_TRUE(g.enter(now, &t[i]));
  EXPECT_FALSE(g.enter(now, &t[4]));
  /* widened and narrowed at once, with tickets out */
  EXPECT_EQ(6u, g.resize(now + ms, FAST, 6));
  EXPECT_TRUE(g.enter(now + ms, &t[4]));
  EXPECT_TRUE(g.enter(now + ms, &t[5]));
  EXPECT_FALSE(g.enter(now + ms, &t[6]));
  EXPECT_EQ(2u, g.resize(now + 2 * ms, FAST, 2));
  for (int i= 0; i < 4; i++)
    g.leave(t[i]);
  EXPECT_FALSE(g.enter(now + 2 * ms, &t[6]))
    << "two still out: nobody more until fewer than two are";
  g.leave(t[4]);
  EXPECT_TRUE(g.enter(now + 2 * ms, &t[6]));
  g.leave(t[5]);
  g.leave(t[6]);
  EXPECT_EQ(0u, g.running());
  /* a rate without a bound: ~0U, any number let in while tokens last,
  without a ticket */
  EXPECT_EQ(~0U, g.resize(now + 3 * ms, FAST, 0));
  std::vector<admission_gate::ticket> many(1000);
  for (auto &x : many)
  {
    EXPECT_TRUE(g.enter(now + 3 * ms, &x));
    EXPECT_FALSE(x.held);
  }
  EXPECT_EQ(0u, g.running());
}

TEST(AdmissionGate, TicketsAreHeldUntilGivenBack)
{
  /* nothing expires: a full gate stays full however long its tickets are
  out, and lets one in per ticket given back */
  admission_gate g;
  uint64_t now= 1000 * ms;
  size_for_ten(g, now);
  admission_gate::ticket held[10], t;
  for (auto &x : held)
    EXPECT_TRUE(g.enter(now, &x));
  now+= 3600000 * ms;
  EXPECT_EQ(10u, g.resize(now, FAST, 10));
  EXPECT_FALSE(g.enter(now, &t));
  EXPECT_FALSE(t.held);
  EXPECT_EQ(10u, g.running());
  for (auto &x : held)
  {
    EXPECT_TRUE(g.leave(x));
    EXPECT_TRUE(g.enter(now, &t));
    EXPECT_TRUE(g.leave(t));
  }
  EXPECT_EQ(0u, g.running());
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
    g.leave(t);
    if (g.enter(now, &t))
    {
      ASSERT_TRUE(t.held);
      admitted++;
    }
    else
      ASSERT_GT(g.token_wait(now), 0u);
  }
  EXPECT_LE(double(admitted), double(rate) + depth + 1);
  EXPECT_GE(double(admitted), double(rate)) << "and not fewer";
  /* the time to wait for the next token is within one token's time */
  g.leave(t);
  while (g.enter(start + 1001 * ms, &t))
    g.leave(t);
  const uint64_t wait= g.token_wait(start + 1001 * ms);
  EXPECT_GT(wait, 0u);
  EXPECT_LE(wait, 1000000000 / rate + 1);
  EXPECT_TRUE(g.enter(start + 1001 * ms + wait, &t));
  EXPECT_TRUE(g.leave(t));
  EXPECT_EQ(0u, g.running());
}

TEST(AdmissionGate, ManyTicketsAreCountedExactly)
{
  constexpr unsigned N= 5000;
  admission_gate g;
  g.track();
  std::vector<admission_gate::ticket> t(N);
  const uint64_t now= 1000 * ms;
  for (auto &x : t)
    ASSERT_TRUE(g.enter(now, &x));
  EXPECT_EQ(N, g.running());
  for (auto &x : t)
    EXPECT_TRUE(g.leave(x));
  EXPECT_EQ(0u, g.running());
  /* and once only */
  EXPECT_FALSE(g.leave(t[N - 1]));
  EXPECT_EQ(0u, g.running());

  /* under a bound as large, and one less */
  admission_gate h;
  ASSERT_EQ(N, h.resize(now, 1000000000, N));
  for (auto &x : t)
    ASSERT_TRUE(h.enter(now, &x));
  admission_gate::ticket late;
  EXPECT_FALSE(h.enter(now, &late));
  ASSERT_EQ(N - 1, h.resize(now, 1000000000, N - 1));
  EXPECT_TRUE(h.leave(t[0]));
  EXPECT_FALSE(h.enter(now, &late)) << "N - 1 out, bound N - 1";
  EXPECT_TRUE(h.leave(t[1]));
  EXPECT_TRUE(h.enter(now, &late));
  for (auto &x : t)
    h.leave(x);
  EXPECT_TRUE(h.leave(late));
  EXPECT_EQ(0u, h.running());
}

/* A wait owed is paid without a ticket: it waits for room and a token,
and holds nothing after. */
TEST(AdmissionGate, APaymentTakesNoTicket)
{
  admission_gate g;
  const uint64_t now= 1000 * ms;
  ASSERT_EQ(2u, g.resize(now, 100, 2));
  admission_gate::ticket a, b;
  EXPECT_TRUE(g.enter(now, nullptr));
  EXPECT_EQ(0u, g.running());
  EXPECT_TRUE(g.enter(now, &a));
  EXPECT_TRUE(g.enter(now, &b));
  EXPECT_FALSE(g.enter(now + 100 * ms, nullptr)) << "no room";
  g.leave(b);
  EXPECT_TRUE(g.enter(now + 100 * ms, nullptr));
  EXPECT_EQ(1u, g.running());
  g.leave(a);
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
one step (undo log truncation frees what purge parsed in steps): the
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
as when a backlog caught up in large batches gives way to small ones,
or the DML moves to tables whose purge costs more: the
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
  most 0.4 s: the controller follows what purge parses over TAU_RATE, not
  the history length */
  const std::vector<double> after(r.history.begin() + 3000, r.history.end());
  EXPECT_LE(pct(after, 100), target + 0.4 * 20000);
  EXPECT_LE(pct(tail(r.history, 3000), 95), 1.1 * target);
  EXPECT_GE(mean(tail(r.rate, 3000)), 0.95 * 10000);
}

namespace
{
/* A saturated server, thread by thread, with 256 client threads:
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
  std::vector<unsigned> bound;        /* the law's (0: none), every 0.1 s */
  std::vector<double> pending;        /* parsed, not truncated, every 0.1 s */
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
  /* first come first served, as srv0purgelab_adaptive.cc lets them in */
  double admitted_at= 0;
  auto admit_waiters= [&](double t)
  {
    while (!queue.empty() && gate.enter(ns(t), &ticket[queue.front()]))
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
      if (gate.leave(ticket[i]))
        admit_waiters(t);
      if (c.limit() && (!queue.empty() || !gate.enter(ns(t), &ticket[i])))
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
      /* gate::want(): those inside (running a transaction, let in or
      not) or those let in and waiting, whichever is more */
      const uint64_t want= std::max<uint64_t>
        (uint64_t(threads) - queue.size(), queue.size() + gate.running());
      const uint64_t limit=
        c.update(uint64_t(t * 1e6) + 1,
                 adaptive_controller::output(uint64_t(history), 0),
                 uint64_t(parsed - truncated), uint64_t(parsed), target,
                 true, want, gate.rate_bound());
      gate.resize(ns(t), limit, c.concurrency());
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
      r.bound.push_back(c.concurrency());
      r.pending.push_back(parsed - truncated);
      counted= commits;
    }
  }
  return r;
}
} // namespace

/* On a saturated server (simulate_saturated()) a delay shorter than the
time that a thread queues anyway has no effect, and a limit that follows
every short rise of purge's rate makes the commit rate swing: the law must
hold the history with a commit rate that stays near its mean, without
intervals in which nothing commits, rather than stop the server and then
let it run free. */
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
  step) */
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
  /* the history waiting for truncation is what purge parsed since the
  last step, 0.5 s apart, which no bound on open transactions speeds up
  here: it passes its share only for moments before a step, and the bound
  then comes in at the 256 that want in and moves by a factor e per TAU at
  most, so it never reaches the server's saturation point (20): the law
  does not seek the throughput's peak, and the throughput above is the
  rate limit's */
  unsigned least= ~0U, in_force= 0;
  for (unsigned k : r.bound)
    if (k)
    {
      least= std::min(least, k);
      in_force++;
    }
  std::printf("saturated server: bound in force in %u of %zu samples,"
              " least %u; pending at most %.0f\n", in_force, r.bound.size(),
              in_force ? least : 0,
              *std::max_element(r.pending.begin(), r.pending.end()));
  if (in_force)
  {
    EXPECT_GE(double(least), 256 * std::exp(-1.0));
  }
  EXPECT_LE(in_force, r.bound.size() / 10) << "slack most of the time";
}

/* The bound on open read-write transactions (open_bound): W integrates
the truncation-pending history p against its share S of the target in
the log domain, d ln W / dt = clamp((S - p) / S, -1, 1) / TAU, within
[1, want]; slack (0) unless p exceeded S. */
namespace
{
/* the interval over which the controller integrates it */
const double STEP_S= double(adaptive_controller::WINDOW) * 1e-6;

/* W against the truncation-pending history alone: g = (S - p) / S, the
error that adaptive_controller gives it while x stays under T */
void integrate(open_bound &b, double dt, double tau, double pending,
               double share, double want)
{
  b.update(dt, tau, (share - pending) / share, want);
}
}

TEST(OpenBound, SlackWhilePendingIsWithinItsShare)
{
  open_bound b;
  for (double want : {1.0, 256.0, 10000.0, 1e9})
    for (int i= 0; i < 1000; i++)
    {
      integrate(b, STEP_S, TAU_S, 5000, 5000, want);
      ASSERT_EQ(0u, b.size()) << "p == S: no bound, " << want << " want in";
      integrate(b, STEP_S, TAU_S, 0, 5000, want);
      ASSERT_EQ(0u, b.size());
    }
}

/* Fewer want in at the moment the bound comes into force than a moment
before (they wait for a CPU in the client): it starts at the most that
wanted in lately, which loses a factor e per TAU, not at those of that
moment: starting there would keep out most of those who want in. */
TEST(OpenBound, ComesIntoForceAtTheMostThatWantedInLately)
{
  open_bound b;
  integrate(b, STEP_S, TAU_S, 0, 5000, 200);
  ASSERT_EQ(0u, b.size());
  /* TAU / 4 of fewer wanting in, slack */
  const int quarter= int(TAU_S / 4 / STEP_S);
  for (int i= 0; i < quarter; i++)
    integrate(b, STEP_S, TAU_S, 0, 5000, 20);
  ASSERT_EQ(0u, b.size());
  integrate(b, STEP_S, TAU_S, 5001, 5000, 20);
  const double lately= 200 * std::exp(-(quarter + 1) * STEP_S / TAU_S);
  EXPECT_NEAR(lately, double(b.size()), 1.0);
  EXPECT_GT(b.size(), 150u) << "not the 20 of that moment";
  /* long after, the peak has decayed to those who want in now */
  open_bound c;
  integrate(c, STEP_S, TAU_S, 0, 5000, 200);
  for (int i= 0; i < 20 * quarter; i++)
    integrate(c, STEP_S, TAU_S, 0, 5000, 20);
  integrate(c, STEP_S, TAU_S, 5001, 5000, 20);
  EXPECT_EQ(20u, c.size());
}

TEST(OpenBound, ComesIntoForceAtWantWithoutAStep)
{
  for (double want : {1.0, 7.0, 256.0, 10000.0})
  {
    open_bound b;
    /* just over its share: W starts at want and moves by (S - p) / S of
    an e-fold per TAU */
    integrate(b, STEP_S, TAU_S, 5001, 5000, want);
    EXPECT_EQ(unsigned(want), b.size()) << want;
    /* far over it: one step of the clamped rate, no more */
    open_bound f;
    integrate(f, STEP_S, TAU_S, 1e12, 5000, want);
    EXPECT_EQ(unsigned(std::max(1.0, std::ceil(want *
                                               std::exp(-STEP_S / TAU_S)))),
              f.size()) << want;
  }
  /* nobody wants in: W is at least 1 */
  open_bound z;
  integrate(z, STEP_S, TAU_S, 6000, 5000, 0);
  EXPECT_EQ(1u, z.size());
}

TEST(OpenBound, ShrinksByAtMostAFactorEPerTau)
{
  const double want= 10000;
  for (double over : {1.5, 2.0, 100.0, 1e9})
  {
    SCOPED_TRACE(over);
    open_bound b;
    const double share= 5000, pending= over * share;
    const double g= std::max(-1.0, (share - pending) / share);
    double t= 0;
    for (int i= 0; i < int(3 * TAU_S / STEP_S + 0.5); i++)
    {
      integrate(b, STEP_S, TAU_S, pending, share, want);
      t+= STEP_S;
      /* exactly the integral of the clamped rate, rounded up */
      ASSERT_NEAR(std::max(1.0, want * std::exp(g * t / TAU_S)),
                  double(b.size()), 1.0) << t;
      ASSERT_GE(double(b.size()), want * std::exp(-t / TAU_S) - 1e-6) << t;
    }
  }
  /* one long interval integrates as many short ones do */
  open_bound one;
  integrate(one, STEP_S, TAU_S, 1e9, 5000, 10000);
  integrate(one, TAU_S, TAU_S, 1e9, 5000, 10000);
  EXPECT_NEAR(10000 * std::exp(-1 - STEP_S / TAU_S), double(one.size()), 1);
}

TEST(OpenBound, GrowsBackAndLapsesOncePendingIsUnderItsShare)
{
  const double want= 256;
  open_bound b;
  /* down to its floor: 1, not 0 */
  for (int i= 0; i < int(10 * TAU_S / STEP_S); i++)
    integrate(b, STEP_S, TAU_S, 20000, 5000, want);
  ASSERT_EQ(1u, b.size()) << "clamped at 1";
  /* p at its share: W holds */
  for (int i= 0; i < 100; i++)
    integrate(b, STEP_S, TAU_S, 5000, 5000, want);
  EXPECT_EQ(1u, b.size()) << "p == S holds W where it is";
  /* p under half its share: W grows by a factor e^(1/2) per TAU, stays in
  force until it reaches want, then lapses */
  double t= 0;
  unsigned last= b.size();
  for (;;)
  {
    integrate(b, STEP_S, TAU_S, 2500, 5000, want);
    t+= STEP_S;
    if (!b.size())
      break;
    ASSERT_GE(b.size(), last) << t;
    ASSERT_LE(double(b.size()), std::ceil(std::exp(0.5 * t / TAU_S))) << t;
    last= b.size();
    ASSERT_LT(t, 100 * TAU_S);
  }
  EXPECT_NEAR(2 * TAU_S * std::log(want), t, 2 * STEP_S)
    << "lapses once back at want";
  /* p at 0: at most a factor e per TAU */
  open_bound c;
  for (int i= 0; i < int(10 * TAU_S / STEP_S); i++)
    integrate(c, STEP_S, TAU_S, 20000, 5000, want);
  t= 0;
  while (c.size())
  {
    integrate(c, STEP_S, TAU_S, 0, 5000, want);
    t+= STEP_S;
    ASSERT_LE(double(c.size()), std::ceil(std::exp(t / TAU_S)) + 1e-9) << t;
  }
  EXPECT_NEAR(TAU_S * std::log(want), t, 2 * STEP_S);
}

/* W bounds every read-write transaction open: those let in without a
ticket count against it. */
TEST(OpenBound, TransactionsWithoutATicketCountAgainstW)
{
  using purge_throttle::ticket_bound;
  EXPECT_EQ(0u, ticket_bound(0, 500, 10)) << "no bound";
  EXPECT_EQ(100u, ticket_bound(100, 40, 40)) << "all hold tickets";
  EXPECT_EQ(100u, ticket_bound(100, 30, 40)) << "tickets not yet given back";
  EXPECT_EQ(60u, ticket_bound(100, 80, 40)) << "40 open without a ticket";
  EXPECT_EQ(1u, ticket_bound(100, 99, 0));
  EXPECT_EQ(1u, ticket_bound(100, 100, 0)) << "never 0: DML is not stopped";
  EXPECT_EQ(1u, ticket_bound(100, 2000, 0));
  EXPECT_EQ(1u, ticket_bound(1, ~uint64_t{0}, 0));
}

TEST(OpenBound, ClampedAtTheMostThatWantedIn)
{
  open_bound b;
  integrate(b, STEP_S, TAU_S, 6000, 5000, 200);
  ASSERT_EQ(200u, b.size());
  /* far over its share for one TAU: W shrinks by e */
  for (int i= 0; i < int(TAU_S / STEP_S); i++)
    integrate(b, STEP_S, TAU_S, 1e12, 5000, 200);
  const double w= 200 * std::exp(-0.2 * STEP_S / TAU_S) * std::exp(-1.0);
  ASSERT_NEAR(w, b.size(), 1);
  /* fewer want in for a moment (they wait for a CPU in the client): W is
  slack, it does not follow them down */
  integrate(b, STEP_S, TAU_S, 6000, 5000, 50);
  EXPECT_NEAR(w, b.size(), 1);
  /* nor lapse: W is not back at the most that wanted in */
  integrate(b, STEP_S, TAU_S, 0, 5000, 10);
  EXPECT_NEAR(w * std::exp(STEP_S / TAU_S), b.size(), 1);
  /* more want in: W does not jump, it grows back at most e per TAU */
  const unsigned before= b.size();
  integrate(b, STEP_S, TAU_S, 0, 5000, 10000);
  EXPECT_LE(b.size(), unsigned(std::ceil(before * std::exp(STEP_S / TAU_S))));
  EXPECT_GT(b.size(), before);
  /* with p under its share, W lapses once it is back at the most that
  wanted in, and not before */
  for (int i= 0; i < 100000 && b.size(); i++)
  {
    ASSERT_LT(b.size(), 10000u);
    integrate(b, STEP_S, TAU_S, 4000, 5000, 10);
  }
  EXPECT_EQ(0u, b.size());
  /* it comes into force afresh at those that want in now */
  integrate(b, STEP_S, TAU_S, 6000, 5000, 30);
  EXPECT_EQ(30u, b.size());
  /* reset() */
  b.reset();
  EXPECT_EQ(0u, b.size());
}

TEST(OpenBound, TheShareIsWhatTheUnparsedPartLeavesOfTheTarget)
{
  EXPECT_EQ(10000.0, adaptive_controller::pending_share(10000, 0));
  EXPECT_EQ(7500.0, adaptive_controller::pending_share(10000, 2500));
  EXPECT_EQ(5000.0, adaptive_controller::pending_share(10000, 5000));
  EXPECT_EQ(5000.0, adaptive_controller::pending_share(10000, 9000));
  EXPECT_EQ(5000.0, adaptive_controller::pending_share(10000, UINT64_MAX));
  EXPECT_EQ(0.5 * double(UINT64_MAX),
            adaptive_controller::pending_share(UINT64_MAX, UINT64_MAX));

  /* update() takes u = x - p: the bound comes into force exactly once p
  exceeds T - min(u, T / 2), at want */
  struct probe { uint64_t u, p; bool bound; };
  const uint64_t T= 10000;
  const probe probes[]= {
    {0, T, false}, {0, T + 1, true},
    {3000, 7000, false}, {3000, 7001, true},
    {8000, 5000, false}, {8000, 5001, true},
    {50000, 5000, false}, {50000, 5001, true}};
  for (const probe &q : probes)
  {
    SCOPED_TRACE(testing::Message() << "u " << q.u << " p " << q.p);
    driver d;
    /* the rate forms at no bound: p within its share */
    for (int i= 0; i < 10; i++)
      d.step(q.u + q.p, T, true, true, 1000, 10000, 0, 300);
    ASSERT_TRUE(d.c.in_force());
    ASSERT_EQ(0u, d.c.concurrency());
    /* a whole WINDOW later, so that the bound is integrated */
    d.step(q.u + q.p, T, true, true, 5000, adaptive_controller::WINDOW,
           q.p, 300);
    EXPECT_EQ(q.bound ? 300u : 0u, d.c.concurrency());
  }
  /* what is reported pending beyond x is taken as x: u = 0, S = T */
  driver d;
  for (int i= 0; i < 10; i++)
    d.step(T, T);
  d.step(T, T, true, true, 5000, adaptive_controller::WINDOW, 3 * T, 300);
  EXPECT_EQ(0u, d.c.concurrency()) << "p = x = T = S";
}

/* The controller integrates W once per rate window, over the window's
length: a factor e per TAU at most, in real time. */
TEST(OpenBound, TheControllerShrinksAndRestoresWInRealTime)
{
  const uint64_t T= 10000, want= 1000;
  driver d;
  for (int i= 0; i < 10; i++)
    d.step(T, T, true, true, 1000, 10000, 0, want);
  ASSERT_EQ(0u, d.c.concurrency());
  /* all of x waits for truncation, far over its share: the clamp */
  const uint64_t start= d.now;
  unsigned last= want;
  for (int i= 0; i < 600; i++)
  {
    d.step(4 * T, T, false, true, 1000, 10000, 4 * T, want);
    const double t= double(d.now - start) * 1e-6;
    ASSERT_NE(0u, d.c.concurrency()) << t;
    /* (the first integration spans the window begun before start) */
    ASSERT_GE(double(d.c.concurrency()),
              std::floor(double(want) * std::exp(-(t + STEP_S) / TAU_S)))
      << t;
    ASSERT_LE(d.c.concurrency(), last) << t;
    last= d.c.concurrency();
  }
  EXPECT_LE(double(last), std::ceil(double(want) * std::exp(-5.5 / TAU_S)))
    << "after 6 s, about want e^-3";
  /* p falls to nothing, x to 0.6 T, over half the target: W grows back,
  at most e per TAU, and lapses at want */
  const uint64_t back= d.now;
  for (int i= 0; i < 2000 && d.c.concurrency(); i++)
  {
    const unsigned before= d.c.concurrency();
    d.step(6 * T / 10, T, false, true, 1000, 10000, 0, want);
    const double t= double(d.now - back) * 1e-6;
    if (d.c.concurrency())
    {
      ASSERT_GE(d.c.concurrency(), before) << t;
      ASSERT_LE(double(d.c.concurrency()),
                std::ceil(double(last) * std::exp((t + STEP_S) / TAU_S)) + 1)
        << t;
    }
  }
  EXPECT_EQ(0u, d.c.concurrency()) << "lapsed";
  EXPECT_NE(0u, d.c.limit()) << "while the rate limit stays in force";
}

/* Hot rows: transactions let in before the rate fell commit on while
purge, slowed by them, parses little; x stays over T although C admits
less than purge parses.  W takes over what C cannot do: it shrinks while
x stays over T, and not while a backlog drains at the floor (x falls);
once x is under T it grows back no faster than x leaves room, only while
x does not rise, and holds where x sits at T. */
TEST(OpenBound, AnswersToTheHistoryOnceTheRateCanDoNoMore)
{
  const uint64_t T= 10000;
  /* purge parses 1,000/s.  A backlog of 3 T draining at the floor: x
  falls, W stays out */
  {
    driver d;
    uint64_t x= 3 * T;
    for (int i= 0; i < 300; i++, x-= 9)
      d.step(x, T, true, true, 10, 10000, 0, 1000);
    EXPECT_EQ(d.c.limit(), uint64_t(adaptive_controller::MIN_SHARE *
                                    d.c.purge_rate()))
      << "at the floor";
    EXPECT_EQ(0u, d.c.concurrency()) << "a falling backlog is C's to drain";
  }
  driver d;
  /* x stands at 1.5 T with C at its floor (50/s): W comes in, drops at
  once to the transactions open that commit at C (1,000 open commit what
  purge parses, 1,000/s: 50 of them), then shrinks at its fastest, e per
  TAU */
  for (int i= 0; i < 100; i++)
    d.step(3 * T / 2, T, true, true, 10, 10000, 0, 1000);
  const unsigned dropped= d.c.concurrency();
  ASSERT_GT(dropped, 0u);
  EXPECT_LE(dropped, 50u);
  for (int i= 0; i < 400; i++)
    d.step(3 * T / 2, T, true, true, 10, 10000, 0, 1000);
  const unsigned shrunk= d.c.concurrency();
  EXPECT_LT(shrunk, dropped) << "at g = -1";
  EXPECT_GE(double(shrunk), std::floor(dropped * std::exp(-4.0 / TAU_S)));
  EXPECT_NE(0u, d.c.drain_width()) << "the drain is in force with W";
  /* x at T exactly: W holds */
  for (int i= 0; i < 200; i++)
    d.step(T, T, true, true, 10, 10000, 0, 1000);
  EXPECT_EQ(shrunk, d.c.concurrency()) << "held where C holds x at T";
  /* x at 0.9 T: C is in force and holds the history; W does not let
  in what C keeps out */
  for (int i= 0; i < 400; i++)
    d.step(9 * T / 10, T, true, true, 10, 10000, 0, 1000);
  EXPECT_EQ(shrunk, d.c.concurrency()) << "held while C is in force";
  /* x at 0.4 T, C out of force: room 0.6, W grows by at most
  e^(0.6 t / TAU) */
  for (int i= 0; i < 200; i++)
    d.step(4 * T / 10, T, true, true, 10, 10000, 0, 1000);
  EXPECT_GT(d.c.concurrency(), shrunk);
  EXPECT_LE(double(d.c.concurrency()),
            std::ceil(shrunk * std::exp(0.6 * 2.0 / TAU_S)) + 1);
  /* an empty history: back to want at most e per TAU, then it lapses */
  for (int i= 0; i < 2000 && d.c.concurrency(); i++)
    d.step(0, T, true, true, 10, 10000, 0, 1000);
  EXPECT_EQ(0u, d.c.concurrency()) << "lapsed";
  EXPECT_EQ(0u, d.c.drain_width());
}

/* Once W answers to x, it grows back only while u, at its trend, would
not reach T within TAU: a fast rise of u under T is a crowd coming in,
which slows purge once it is in. */
TEST(OpenBound, GrowsBackOnlyWhileNoCrowdComesIn)
{
  const uint64_t T= 10000;
  driver d;
  /* x stands at 1.5 T with C at its floor: W comes in and shrinks */
  for (int i= 0; i < 600; i++)
    d.step(3 * T / 2, T, true, true, 10, 10000, 0, 1000);
  ASSERT_GT(d.c.concurrency(), 0u);
  /* u rises at 2,000/s from 0.3 T: once its trend has settled (1.8 s, x
  at 0.66 T), it would pass T within TAU, and W takes no room while it
  rises on to 0.86 T, although at 0.34-0.14 of room it would grow */
  uint64_t x= 3 * T / 10;
  for (int i= 0; i < 300; i++)   /* the trend forgets the fall */
    d.step(x, T, true, true, 10, 10000, 0, 1000);
  for (int i= 0; i < 180; i++, x+= 20)
    d.step(x, T, true, true, 10, 10000, 0, 1000);
  const unsigned low= d.c.concurrency();
  ASSERT_GT(low, 0u);
  for (int i= 0; i < 100; i++, x+= 20)
    d.step(x, T, true, true, 10, 10000, 0, 1000);
  EXPECT_EQ(low, d.c.concurrency()) << "held while u rises";
  /* x stands at 0.86 T: its trend decays, but C is in force: held */
  const unsigned held= d.c.concurrency();
  for (int i= 0; i < 200; i++)
    d.step(x, T, true, true, 10, 10000, 0, 1000);
  EXPECT_EQ(held, d.c.concurrency());
  /* x falls to 0.4 T and stands: once its trend has decayed, it grows */
  x= 4 * T / 10;
  for (int i= 0; i < 300; i++)
    d.step(x, T, true, true, 10, 10000, 0, 1000);
  EXPECT_GT(d.c.concurrency(), held);
}

/* W from p, once truncation has freed p, grows back only while u, at its
trend, would not reach T within TAU: a crowd let in faster than purge
parses it would fill u before W binds again. */
TEST(OpenBound, GrowsBackOnlyWhileTheParseKeepsUp)
{
  const uint64_t T= 10000, want= 5000;
  driver d;
  /* p stands at 3 T: W comes in from p and shrinks */
  for (int i= 0; i < 300; i++)
    d.step(3 * T, T, true, true, 1000, 10000, 3 * T, want);
  ASSERT_GT(d.c.concurrency(), 0u);
  ASSERT_LT(d.c.concurrency(), want);
  /* truncation frees p; u rises at 2,000/s from 0.3 T: once its trend has
  settled (1.8 s, x at 0.66 T) it would pass T within TAU, and W holds
  while u rises on to 0.86 T */
  uint64_t x= 3 * T / 10;
  for (int i= 0; i < 180; i++, x+= 20)
    d.step(x, T, true, true, 1000, 10000, 0, want);
  const unsigned low= d.c.concurrency();
  ASSERT_GT(low, 0u);
  for (int i= 0; i < 100; i++, x+= 20)
    d.step(x, T, true, true, 1000, 10000, 0, want);
  EXPECT_EQ(low, d.c.concurrency()) << "held while the parse falls behind";
  /* x falls to 0.4 T and stands: u no longer rises, and W grows back
  at its fastest, by e per TAU */
  x= 4 * T / 10;
  for (int i= 0; i < 100; i++)
    d.step(x, T, true, true, 1000, 10000, 0, want);
  EXPECT_GT(double(d.c.concurrency()), double(low) * std::exp(0.4 / TAU_S));
  EXPECT_LE(double(d.c.concurrency()),
            std::ceil(double(low) * std::exp(1.0 / TAU_S)));
}

/* Once C loses, W drops at once by Little's law to the open transactions
that would commit at C; it does so once per loss, so that the crowd
leaving (fewer open, the same commits averaged over TAU_RATE) does not
ratchet it down to one. */
TEST(OpenBound, DropsOnceToWhatCommitsAtTheRateWhenTheRateLoses)
{
  const uint64_t T= 10000;
  adaptive_controller c;
  uint64_t now= 0, purged= 0;
  double x= 1.2 * double(T);
  /* purge parses 1,000/s; 2,048 open commit 3,000/s: u rises 2,000/s */
  unsigned w= 0;
  int i= 0;
  for (; i < 1000 && !w; i++)
  {
    now+= 10000;
    purged+= 10;
    x+= 20;
    c.update(now, uint64_t(x), 0, purged, T, true, 2048, true, 2048);
    w= c.concurrency();
  }
  ASSERT_GT(w, 0u) << "C lost";
  const double floor= adaptive_controller::MIN_SHARE * c.purge_rate();
  /* what commits: purge's 1,000/s plus u's trend, which has not settled
  fully at 2,000/s */
  EXPECT_LE(double(w), std::ceil(2048 * floor / 1000.0));
  EXPECT_GE(double(w), std::floor(2048 * floor / 3000.0));
  /* the crowd leaves while u still rises: W shrinks at e per TAU only */
  for (int j= 0; j < 50; j++)
  {
    now+= 10000;
    purged+= 10;
    x+= 20;
    c.update(now, uint64_t(x), 0, purged, T, true, 2048, true,
             std::max(w, 2048U - 40U * unsigned(j)));
  }
  EXPECT_GE(double(c.concurrency()),
            std::floor(double(w) * std::exp(-0.5 / TAU_S)));
}

/* Transactions that wait for a lock keep their rollback segments from
truncation and commit nothing: W acts as far ahead of p as they are
(at most (1 - ENGAGE) S, as any lead), and while more of the open wait
than run, W is at most half of those let in (at most half of them run;
one more let in would only join a lock's queue), until truncation has
freed p; where no more wait than run, W is as without them. */
/** lock_steps()'s step, microseconds */
static constexpr uint64_t LOCK_STEP= 10000;

/* steps of LOCK_STEP at a target T in which purge parses 1,000/s: the
history x, of it pending waiting for truncation, want connections open,
waits of them waiting for a lock */
static void lock_steps(adaptive_controller &c, uint64_t &now,
                       uint64_t &purged, uint64_t T, uint64_t x,
                       uint64_t pending, uint64_t want, uint64_t waits,
                       int steps)
{
  for (int i= 0; i < steps; i++)
  {
    now+= LOCK_STEP;
    purged+= 10;
    c.update(now, x, pending, purged, T, true, want, true, want, waits);
  }
}

/* lock_steps() after which what commits is measured (TAU_RATE): a lock
queue is read as a crowd only then */
static constexpr int MEASURED= int(adaptive_controller::TAU_RATE / LOCK_STEP) + 1;

TEST(OpenBound, AnswersToTransactionsWaitingForALock)
{
  const uint64_t T= 10000, want= 4096;
  /* all of the history p waits for truncation, want open */
  auto run= [&](adaptive_controller &c, uint64_t &now, uint64_t &purged,
                uint64_t p, uint64_t waits, int steps)
  { lock_steps(c, now, purged, T, p, p, want, waits, steps); };
  {
    /* out of force (p under its share): lock waits bring nothing in */
    adaptive_controller c;
    uint64_t now= 0, purged= 0;
    run(c, now, purged, T / 4, want - 1, 100);
    EXPECT_FALSE(c.in_force());
    EXPECT_EQ(0u, c.concurrency());
  }
  {
    /* p at 0.8 of its share (S = T): under it, W stays out of force
    without lock waits; 3,000 waiting join p before truncation frees
    any, so W comes in, and, more waiting than run, at most half the
    4,096 let in */
    adaptive_controller c, d;
    uint64_t now= 0, purged= 0, now2= 0, purged2= 0;
    run(c, now, purged, 8 * T / 10, 0, MEASURED);
    ASSERT_EQ(0u, c.concurrency());
    run(c, now, purged, 8 * T / 10, 3000, 50);
    run(d, now2, purged2, 8 * T / 10, 0, 50);
    EXPECT_EQ(0u, d.concurrency()) << "no bound (the rate is in force)";
    ASSERT_NE(0u, c.concurrency());
    EXPECT_LE(c.concurrency(), want / 2);
    /* under ENGAGE of its share, lock waits bring no W in */
    adaptive_controller e;
    now= purged= 0;
    run(e, now, purged, 4 * T / 10, want, 50);
    EXPECT_EQ(0u, e.concurrency());
  }
  {
    /* half of the open wait, as many as run: W as without any */
    adaptive_controller c, d;
    uint64_t now= 0, purged= 0, now2= 0, purged2= 0;
    run(c, now, purged, 2 * T, want / 2, 50);
    run(d, now2, purged2, 2 * T, 0, 50);
    ASSERT_GT(c.concurrency(), 0u);
    EXPECT_EQ(d.concurrency(), c.concurrency());
  }
  adaptive_controller c;
  uint64_t now= 0, purged= 0;
  /* 3,840 of 4,096 wait: W at once at most half of them (once what
  commits is measured), not the 256 that run */
  run(c, now, purged, 2 * T, 0, MEASURED);
  run(c, now, purged, 2 * T, 3840, 2);
  ASSERT_TRUE(c.in_force());
  EXPECT_LE(c.concurrency(), want / 2);
  EXPECT_GT(c.concurrency(), want / 4);
  /* the queue lasts: the cut goes on only as those let in leave, to
  half of those still open each time */
  for (uint64_t open= want / 2; open > 128; open/= 2)
  {
    now+= LOCK_STEP;
    purged+= 10;
    c.update(now, 2 * T, 2 * T, purged, T, true, want, true, open,
             open - 8);
    ASSERT_EQ(open / 2, c.concurrency()) << "open " << open;
  }
  /* all of the 128 open wait: no more than half of them, and no cut for
  a queue that what commits clears within a poll (1,000/s: 10 in 10 ms) */
  c.update(now+= LOCK_STEP, 2 * T, 2 * T, purged+= 10, T, true, want, true,
           64, 64);
  EXPECT_EQ(32u, c.concurrency());
  c.update(now+= LOCK_STEP, 2 * T, 2 * T, purged+= 10, T, true, want, true,
           8, 8);
  EXPECT_EQ(32u, c.concurrency()) << "8 waiting: no crowd";
  /* p held over ENGAGE of its share (C in force): W grows back, with no
  lock waits, to at most half the 4,096 let in when most waited, not
  into the queues again */
  for (int i= 0; i < 6000; i++)
  {
    run(c, now, purged, 6 * T / 10, 0, 1);
    ASSERT_TRUE(c.in_force());
    ASSERT_LE(c.concurrency(), want / 2);
  }
  EXPECT_EQ(want / 2, c.concurrency()) << "grown back to half";
  {
    /* the crowd leaves while p is held: no more want in than half of it
    for TAU, W lapses; a shorter dip leaves W where it is */
    adaptive_controller d= c;
    uint64_t now2= now, purged2= purged;
    auto half_want= [&](int steps)
    {
      for (int i= 0; i < steps && d.concurrency(); i++)
      {
        now2+= 10000;
        purged2+= 10;
        d.update(now2, 6 * T / 10, 6 * T / 10, purged2, T, true, want / 2,
                 true, want / 2, 0);
      }
    };
    half_want(100);
    EXPECT_EQ(want / 2, d.concurrency()) << "a dip of 1 s";
    run(d, now2, purged2, 6 * T / 10, 0, 1);
    half_want(300);
    EXPECT_EQ(0u, d.concurrency()) << "lapsed";
  }
  /* truncation frees p: nothing holds the history, and W grows back by
  at most e per TAU, however many wait for a lock (a load's own lock
  waits, as on TPC-C, do not hold it down), to want, where it lapses */
  const unsigned low= c.concurrency();
  const uint64_t back= now;
  while (c.in_force() && now - back < 60000000)
  {
    run(c, now, purged, 0, 3 * want / 4, 1);
    ASSERT_LE(double(c.concurrency()),
              std::ceil(double(low) *
                        std::exp(double(now - back) * 1e-6 / TAU_S +
                                 STEP_S / TAU_S)) + 1);
  }
  EXPECT_FALSE(c.in_force()) << "lapsed at want";
  /* from half of want to want: no sooner than TAU ln 2 */
  EXPECT_GE(double(now - back) * 1e-6, TAU_S * std::log(2.0) - STEP_S)
    << "not at once";
}

/* Where truncation keeps up (p near 0) and the history is unparsed, C
holds it; if then, over the target, more of those let in wait for a lock
than run, W comes in at once at most half of them, and grows back to at
most half the crowd; not while no more wait than run, nor under the
target with W from p slack (C in force or not): a load whose own lock
waits are most of its connections, as TPC-C's, would be held at half the
target. */
TEST(OpenBound, ComesInForALockQueueWhileTheRateHolds)
{
  const uint64_t T= 10000, want= 512;
  /* x all unparsed, want open */
  auto run= [&](adaptive_controller &c, uint64_t &now, uint64_t &purged,
                uint64_t x, uint64_t waits, int steps)
  { lock_steps(c, now, purged, T, x, 0, want, waits, steps); };
  {
    /* C out of force (x under ENGAGE T): lock waits bring nothing in */
    adaptive_controller c;
    uint64_t now= 0, purged= 0;
    run(c, now, purged, 4 * T / 10, 400, 100);
    EXPECT_EQ(0u, c.concurrency());
  }
  {
    /* C in force under the target: lock waits bring nothing in */
    adaptive_controller c;
    uint64_t now= 0, purged= 0;
    run(c, now, purged, 8 * T / 10, 400, 300);
    EXPECT_NE(0u, c.limit());
    EXPECT_EQ(0u, c.concurrency());
  }
  {
    /* C in force over the target, fewer wait than run: the rate alone */
    adaptive_controller c;
    uint64_t now= 0, purged= 0;
    run(c, now, purged, 105 * T / 100, 200, 100);
    EXPECT_NE(0u, c.limit());
    EXPECT_EQ(0u, c.concurrency());
  }
  adaptive_controller c;
  uint64_t now= 0, purged= 0;
  run(c, now, purged, 105 * T / 100, 0, MEASURED);
  ASSERT_EQ(0u, c.concurrency());
  run(c, now, purged, 105 * T / 100, 400, 1);
  ASSERT_TRUE(c.in_force());
  EXPECT_GE(c.concurrency(), 1u);
  EXPECT_EQ(c.concurrency(), want / 2) << "half the 512, not the 112 that run";
  /* the history falls under ENGAGE T: nothing holds it, and W grows
  back, whatever waits, to want, where it lapses */
  run(c, now, purged, 2 * T / 10, 400, 3000);
  EXPECT_EQ(0u, c.concurrency());
}

/* TPC-C's shape: 32 connections, about two thirds of them waiting for a
row lock at any time, and a history that waits for truncation.  W comes
in for the queue only once p exceeds its share less W's lead: with p
under that and the history under the target, nothing binds and nobody is
cut, whether or not C is in force. */
TEST(OpenBound, ALoadsOwnLockWaitsHoldNothingUnderTheTarget)
{
  const uint64_t T= 2000, want= 32, waits= 22;
  for (uint64_t p : {T / 4, T / 2, 6 * T / 10, 8 * T / 10})
  {
    adaptive_controller c;
    uint64_t now= 0, purged= 0;
    /* x = p + 100 unparsed: S = T - 100 */
    lock_steps(c, now, purged, T, p + 100, p, want, waits, 300);
    EXPECT_EQ(0u, c.concurrency()) << "p " << p;
  }
  /* p over its share less the lead (the waiting): W comes in at half the
  32 let in (not the 10 that run) */
  adaptive_controller c;
  uint64_t now= 0, purged= 0;
  lock_steps(c, now, purged, T, 100 + 95 * T / 100, 95 * T / 100, want,
             waits, MEASURED + 1);
  EXPECT_EQ(want / 2, c.concurrency());
}

/* W from p acts ahead of p by p's last rise after it came in; that lead
brings W in under the target, where it answers by its own error, not by a
cut for the lock queue: the waiting, not the lead, tell how far over the
target the history will be before truncation frees any. */
TEST(OpenBound, ALeadUnderTheTargetIsNoLockQueue)
{
  const uint64_t T= 2000, want= 32, waits= 22;
  adaptive_controller c;
  uint64_t now= 0, purged= 0;
  /* W comes in from p over its share (S = 1,900), nobody waiting; p rises
  500 further, then truncation frees it: a rise of 500 is measured */
  lock_steps(c, now, purged, T, 100 + 1950, 1950, want, 0, MEASURED);
  ASSERT_TRUE(c.in_force());
  lock_steps(c, now, purged, T, 100 + 2450, 2450, want, 0, 10);
  lock_steps(c, now, purged, T, 100, 0, want, 0, 3000);
  ASSERT_EQ(0u, c.concurrency()) << "lapsed at want";
  /* p at 1,500, 22 of the 32 waiting: p and the lead of 500 exceed S, so
  W comes in, but the history with the waiting (1,622) is under T */
  lock_steps(c, now, purged, T, 100 + 1500, 1500, want, waits, 50);
  ASSERT_TRUE(c.in_force()) << "W from p";
  EXPECT_GE(c.concurrency(), 30u) << "no cut for the queue";
  /* the waiting take the history over the target: W at half the 32 */
  lock_steps(c, now, purged, T, 100 + 1890, 1890, want, waits, 1);
  EXPECT_EQ(want / 2, c.concurrency());
}

/* A lock queue brings W into force at half of those let in, with half the
crowd as its ceiling, whether or not it was in force: as a cut from
update()'s own entry would. */
TEST(OpenBound, ALockQueueBringsWIn)
{
  open_bound b;
  const double tau= 2;
  b.queue(224, 512);
  ASSERT_TRUE(b.in_force());
  EXPECT_EQ(112u, b.size());
  for (int i= 0; i < 600; i++)
    b.update(0.1, tau, 1, 512);
  EXPECT_EQ(256u, b.size()) << "grown back to half of the 512";
  /* a queue while in force cuts as cap() does and keeps the ceiling */
  b.queue(20, 512);
  EXPECT_EQ(10u, b.size());
  for (int i= 0; i < 600; i++)
    b.update(0.1, tau, 1, 512);
  EXPECT_EQ(256u, b.size());
}

/* Lock queues form at once past some crowd: after W was cut for them, it
grows back to at most half the most that wanted in since it came in (a
later cut does not lower that), and it lapses once no more than that
have wanted in for TAU. */
TEST(OpenBound, GrowsBackToHalfTheCrowdThatQueued)
{
  open_bound b;
  const double tau= 2;
  b.update(0.1, tau, -1, 4096);
  ASSERT_TRUE(b.in_force());
  b.queued();
  b.cap(100);
  EXPECT_EQ(100u, b.size());
  /* a later cut from a bound of 300 keeps the ceiling at 2,048 */
  for (int i= 0; i < 20; i++)
    b.update(0.1, tau, 1, 4096);
  b.queued();
  b.cap(20);
  for (int i= 0; i < 600; i++)
    b.update(0.1, tau, 1, 4096);
  EXPECT_EQ(2048u, b.size());
  /* fewer want in than the crowd that queued, but more than half of it */
  for (int i= 0; i < 10; i++)
    b.update(0.1, tau, 1, 3000);
  EXPECT_EQ(2048u, b.size());
  /* no more than half of it want in for less than TAU: W stays */
  for (int i= 0; i < 19; i++)
    b.update(0.1, tau, 1, 2000);
  EXPECT_TRUE(b.in_force());
  /* one more reading above half resets the count */
  b.update(0.1, tau, 1, 3000);
  for (int i= 0; i < 19; i++)
    b.update(0.1, tau, 1, 2000);
  EXPECT_TRUE(b.in_force());
  /* for TAU: W lapses */
  for (int i= 0; i < 2 && b.in_force(); i++)
    b.update(0.1, tau, 1, 2000);
  EXPECT_FALSE(b.in_force());
  /* a new episode forgets the crowd */
  b.update(0.1, tau, -1, 4096);
  for (int i= 0; i < 600; i++)
    b.update(0.1, tau, 1, 4096);
  EXPECT_FALSE(b.in_force());
  /* a bound that was not in force records no crowd */
  open_bound c;
  c.queued();
  c.update(0.1, tau, -1, 4096);
  for (int i= 0; i < 600; i++)
    c.update(0.1, tau, 1, 4096);
  EXPECT_FALSE(c.in_force());
}

/* A thread pool lets in a few at a time: a lock queue among them that
what commits clears within a purge poll is no crowd, and W stays out
(cut to the one that ran, it held the crowd that the pool then handed to
the gate).  A queue that takes longer to clear cuts W as any, and W grows
back to half the crowd that then wants in (they wait at the gate), not
to half of those let in; once it lets in all that the pool brings to the
gate, it lapses. */
TEST(OpenBound, AFewLetInDoNotHoldTheCrowd)
{
  const uint64_t T= 10000, crowd= 4094;
  /* the history unparsed, over the target with C in force: the lock
  rule may cut */
  const uint64_t over= 105 * T / 100;
  {
    /* 3 of the 4 let in wait for a lock, at 1,000 commits a second
    (measured over the first 0.1 s): 3 ms to clear */
    adaptive_controller c;
    uint64_t now= 0, purged= 0;
    lock_steps(c, now, purged, T, 4 * T / 10, 0, 4, 0, 10);
    lock_steps(c, now, purged, T, over, 0, 4, 3, 100);
    EXPECT_NE(0u, c.limit()) << "C in force";
    EXPECT_EQ(0u, c.concurrency());
  }
  adaptive_controller c;
  uint64_t now= 0, purged= 0;
  /* 30 of the 40 let in wait: 30 ms to clear, more than a poll */
  lock_steps(c, now, purged, T, 4 * T / 10, 0, 40, 0, 10);
  lock_steps(c, now, purged, T, over, 0, 40, 30, 100);
  ASSERT_TRUE(c.in_force());
  EXPECT_EQ(20u, c.concurrency()) << "half the 40";
  /* truncation frees p; the crowd waits at the gate (the pool hands the
  gate another connection for each that waits there) */
  bool grew= false;
  for (int i= 0; i < 3000 && c.concurrency(); i++)
  {
    now+= 10000;
    purged+= 10;
    const uint64_t w= c.concurrency();
    grew= grew || w > 40;
    c.update(now, 0, 0, purged, T, true, crowd, true, w, 0);
  }
  EXPECT_TRUE(grew) << "W grew past the 40 let in at the cut";
  EXPECT_FALSE(c.in_force()) << "lapsed within 30 s";
}

/* A load starts on a purge that was idle: the first evaluation sees a
history over the target while nothing has measured what commits.  Its
inputs are those of a cut that a thread pool showed at 4,096 connections
on hot rows (3 of the 5 let in waiting for a lock, p 586), but with the
history over the target (it was at 7,593), where the lock rule may cut.
Such a queue is a crowd only once what commits is measured and would not
clear it within a poll. */
TEST(OpenBound, AQueueIsNoCrowdBeforeWhatCommitsIsMeasured)
{
  const uint64_t T= 10000, x= 10500, pending= 586;
  adaptive_controller c;
  uint64_t now= 0, purged= 0;
  /* 1,000 commits a second, parsed as they come: 3 ms to clear */
  for (int i= 0; i < 200; i++)
  {
    lock_steps(c, now, purged, T, x, pending, 5, 3, 1);
    ASSERT_EQ(0u, c.concurrency()) << "no W at " << now << " us";
  }
  EXPECT_TRUE(c.in_force()) << "C holds the history";
  /* 300 of 400 waiting: 0.3 s to clear at that rate, a crowd once it is
  measured */
  adaptive_controller d;
  now= 0;
  purged= 0;
  while (!d.concurrency() && now < 200 * LOCK_STEP)
    lock_steps(d, now, purged, T, x, pending, 400, 300, 1);
  EXPECT_EQ(200u, d.concurrency()) << "half the 400";
  /* cut within TAU_RATE and a rate window of the first evaluation (at
  LOCK_STEP) */
  EXPECT_GE(now - LOCK_STEP, adaptive_controller::TAU_RATE - LOCK_STEP);
  EXPECT_LE(now - LOCK_STEP, adaptive_controller::TAU_RATE +
                             adaptive_controller::WINDOW);
}

/* An empty history ends neither bound at once: the bound that answers to
truncation grows back at its fastest and lapses at want, the one that
answers to the history since C lost stays: the crowd that either keeps
out, let in at once, would fill the history again. */
TEST(OpenBound, AnEmptyHistoryEndsNoBoundAtOnce)
{
  const uint64_t T= 10000;
  {
    driver d;
    for (int i= 0; i < 300; i++)
      d.step(3 * T, T, true, true, 1000, 10000, 3 * T, 5000);
    const unsigned w= d.c.concurrency();
    ASSERT_GT(w, 0u) << "p over its share";
    ASSERT_LT(w, 5000u);
    expect_grows_back(d, T, 1000, 5000);
    EXPECT_FALSE(d.c.in_force());
  }
  driver d;
  for (int i= 0; i < 300; i++)
    d.step(3 * T / 2, T, true, true, 10, 10000, 0, 1000);
  const unsigned w= d.c.concurrency();
  ASSERT_GT(w, 0u) << "C lost";
  d.step(0, T, true, true, 10, 10000, 0, 1000);
  EXPECT_EQ(0u, d.c.limit()) << "the rate lapses";
  EXPECT_GE(d.c.concurrency(), w) << "the bound stays";
  EXPECT_TRUE(d.c.in_force());
}

/* The rate is in force exactly while x > ENGAGE T and purge progresses:
connections that wait keep it on no longer.  The bound outlives it: under
ENGAGE T it grows back by at most e per TAU and lapses at want, rather
than letting everyone in at once. */
TEST(OpenBound, TheRateLapsesBelowEngageTheBoundGrowsBack)
{
  const uint64_t T= 10000, want= 5000;
  driver d;
  for (int i= 0; i < 300; i++)
    d.step(3 * T, T, true, true, 1000, 10000, 3 * T, want);
  ASSERT_TRUE(d.c.in_force());
  const unsigned shrunk= d.c.concurrency();
  ASSERT_GT(shrunk, 0u);
  ASSERT_LT(shrunk, want);
  /* the history falls to half the target with every connection waiting
  and the rate limit binding */
  const uint64_t half= uint64_t(adaptive_controller::ENGAGE * double(T));
  unsigned last= shrunk;
  for (int i= 0; i < 20; i++)
  {
    EXPECT_EQ(0u, d.step(half, T, true, true, 1000, 10000, half, want));
    EXPECT_EQ(0, d.c.integral());
    EXPECT_GE(d.c.concurrency(), last) << "grows back, never jumps";
    EXPECT_LE(double(d.c.concurrency()),
              std::ceil(double(last) * std::exp(0.01 / TAU_S)) + 1);
    last= d.c.concurrency();
  }
  EXPECT_TRUE(d.c.in_force()) << "the bound is still on";
  for (int i= 0; i < 100000 && d.c.concurrency(); i++)
    d.step(half, T, true, true, 1000, 10000, half, want);
  EXPECT_EQ(0u, d.c.concurrency()) << "lapsed at want";
  EXPECT_FALSE(d.c.in_force());
  /* purge blocked: out of force, whatever waits */
  for (int i= 0; i < 300; i++)
    d.step(3 * T, T, true, true, 1000, 10000, 3 * T, want);
  ASSERT_GT(d.c.concurrency(), 0u);
  d.step(3 * T, T, true, false, 0, 10000, 3 * T, want);
  EXPECT_EQ(0u, d.c.limit());
  EXPECT_EQ(0u, d.c.concurrency());
  /* no target */
  d.step(3 * T, 0, true, true, 1000, 10000, 3 * T, want);
  EXPECT_EQ(0u, d.c.limit());
  EXPECT_EQ(0u, d.c.concurrency());
}

/* Whatever the inputs, concurrency() is 0 while purge cannot progress or
there is no target, and otherwise within [1, max(1, the most that wanted
in since the bound came into force, or lately when it came in)]; "lately"
is at most since the law was last out of force (the decay only lowers
it). */
TEST(OpenBound, TheBoundStaysWithinItsRange)
{
  std::mt19937_64 rng(7);
  adaptive_controller c;
  uint64_t now= 1, purged= 0, want= 0, most= 0, lately= 0;
  unsigned with_bound= 0, without_limit= 0;
  for (int i= 0; i < 200000; i++)
  {
    now+= rng() % 40000;
    if (rng() % 8)
      purged+= rng() % 3000;
    const uint64_t T= rng() % 4 ? 10000 : rng() % 3 ? 0 : rng();
    const uint64_t x= rng() % 3 ? rng() % 40000 : rng() % 7 ? 0 : rng();
    const uint64_t pending= rng() % 2 ? x / (1 + rng() % 4) : rng() % 50000;
    /* those that want in change now and then: within a rate window the
    bound integrated at its start applies */
    if (i % 1000 == 0)
      want= rng() % 5 ? rng() % 3000 : rng() % 2 ? 0 : rng();
    const bool progress= rng() % 16;
    const bool had_bound= c.concurrency();
    c.update(now, x, pending, purged, T, progress, want, rng() % 2);
    lately= progress && T ? std::max(lately, want) : 0;
    most= had_bound ? std::max(most, want) : lately;
    if (!c.limit())
      without_limit++;
    if (!progress || !T)
      ASSERT_EQ(0u, c.concurrency()) << i;
    else if (c.concurrency())
    {
      with_bound++;
      ASSERT_GE(c.concurrency(), 1u);
      ASSERT_LE(double(c.concurrency()),
                std::max(1.0, std::ceil(double(most)))) << i;
    }
    if (!progress || !T)
    {
      ASSERT_EQ(0u, c.limit());
    }
  }
  EXPECT_GT(with_bound, 1000u) << "the bound was exercised";
  EXPECT_GT(without_limit, 1000u);
}
