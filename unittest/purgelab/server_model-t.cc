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

/* The throttle's own code (the law, the gate, the points, the drain) in
closed loop with a model of this machine's server, transaction by
transaction (server_model.h).  Two plants, fitted to the server's
unthrottled runs on two cores: the default load (256 connections, uniform
rows, throughput flat from 16 connections on, per-second noise) and hot
rows (a few hundred rows take three quarters of the updates; handing a row
lock over costs CPU per waiter).  Each test first checks that the plant
shows what the server showed, then judges the law:
 - where the unthrottled history stays under the target: nobody waits, and
   at least 0.99 of the unthrottled throughput;
 - where it does not: history p95 within [0.8, 1.1] T on uniform rows, at
   most 1.1 T on hot rows (where the best bound holds less), and at least
   0.95 of the best throughput that a fixed bound on the transactions let in
   reaches while it holds T (searched over the bound). */

#include "server_model.h"
#include "law-43587ff/server_model_43587ff.h"
#include <gtest/gtest.h>
#include <cstdio>

using namespace purgelab_server;

namespace
{
/** oltp_write_only at 256 connections: about 7,000 transactions a second
on two CPUs, a quarter of a millisecond of CPU each, open about a
millisecond off the CPU (the client's round trips), durable half a
millisecond after the commit; purge parses one in 4 us of CPU; undo log
truncation every 0.3 s, which frees a rollback segment only while no open
transaction references it; per-second noise of +-10% (uniform) */
params default_load(unsigned connections= 256)
{
  params p;
  p.connections= connections;
  p.trx_cpu= 230e-6;
  p.think_cpu= 50e-6;
  p.open_time= 0.6e-3;
  p.durable_time= 0.5e-3;
  p.parse_cpu= 4e-6;
  p.truncation_every= 0.3;
  p.noise= 0.1 / std::sqrt(3.0);
  p.noise_period= 1;
  p.target= 10000;
  p.seconds= 60;
  return p;
}

/** oltp_update_non_index with rand-type=special over 5 x 5,000 rows: 250
rows take three quarters of the single-row updates, whose locks are held
from the update to the commit; handing a lock over costs 0.1 ms of CPU per
waiter; noise of standard deviation 0.2 every 0.5 s */
params hot_rows(unsigned connections)
{
  params p;
  p.connections= connections;
  p.trx_cpu= 150e-6;
  p.think_cpu= 100e-6;
  p.open_time= 0;
  p.durable_time= 0.5e-3;
  p.parse_cpu= 4e-6;
  p.truncation_every= 0.3;
  p.hot_rows= 250;
  p.hot_share= 0.75;
  p.handover_cpu= 100e-6;
  p.noise= 0.2;
  p.noise_period= 0.5;
  p.target= 10000;
  p.seconds= 45;
  return p;
}

/** judged after the approach */
constexpr double FROM= 15;

struct verdict
{
  double p95, throughput;
  unsigned waiting_s, least_bound;
};

/** the run from `from` seconds to its end */
verdict judge(const params &p, const result &r, double from= FROM)
{
  verdict v;
  v.p95= r.p95(from, p.seconds) / double(p.target);
  v.throughput= r.throughput(from, p.seconds);
  v.waiting_s= r.waiting_seconds(from, p.seconds);
  v.least_bound= r.least_bound(from, p.seconds);
  return v;
}

params unthrottled(params p)
{
  p.target= 0;
  return p;
}

params rate_alone(params p)
{
  p.rate_alone= true;
  return p;
}

void print(const char *what, const params &p, const verdict &v)
{
  std::printf("%-40s %5u connections: history p95 %.2f T, %6.0f tps,"
              " waited in %2u s, least bound %u\n", what, p.connections,
              v.p95, v.throughput, v.waiting_s, v.least_bound);
}
} // namespace

/* The default plant as the server showed it: throughput flat from 16 to
256 connections, and unthrottled the history over the target (the server:
p95 1.43-2.32 T at 256 connections, mostly parsed and waiting for
truncation). */
TEST(ServerModel, TheDefaultPlant)
{
  const params p= default_load();
  const verdict u16= judge(p, run(unthrottled(default_load(16)))),
    u= judge(p, run(unthrottled(p)));
  print("unthrottled", default_load(16), u16);
  print("unthrottled", p, u);
  EXPECT_GE(u16.throughput, 0.95 * u.throughput);
  EXPECT_GE(u.p95, 1.4);
  EXPECT_LE(u.p95, 3.0);
}

/* The law on the default load: the target held, not half of it, at the
throughput of the best fixed bound and of unthrottled. */
TEST(ServerModel, TheDefaultLoadHeldAtTheTarget)
{
  const params p= default_load();
  const result r= run(p);
  const verdict v= judge(p, r), u= judge(p, run(unthrottled(p)));
  const best b= best_bound(p, FROM);
  print("law", p, v);
  std::printf("best fixed bound %u: %.0f tps at p95 %.2f T\n", b.bound,
              b.throughput, b.p95 / double(p.target));
  EXPECT_GE(v.p95, 0.8);
  EXPECT_LE(v.p95, 1.1);
  EXPECT_GE(v.throughput, 0.95 * b.throughput);
  EXPECT_GE(v.throughput, 0.95 * u.throughput);
  EXPECT_EQ(0u, r.held_empty) << "a rate published on an empty history";
}

/* A load that purge keeps up with (MDEV-29401's own: a few connections):
the history stays under the target unthrottled, and the law holds nobody
and costs nothing. */
TEST(ServerModel, UnderPurgesCapacityNobodyWaits)
{
  params p= default_load(4);
  p.target= 1000;
  const result r= run(p);
  const verdict v= judge(p, r), u= judge(p, run(unthrottled(p)));
  print("unthrottled", p, u);
  print("law", p, v);
  ASSERT_LT(u.p95, 1.0) << "the plant is not under capacity";
  EXPECT_EQ(0u, v.waiting_s);
  EXPECT_EQ(0u, r.bound_seconds(FROM, p.seconds));
  EXPECT_GE(v.throughput, 0.99 * u.throughput);
}

/** shutdown_backlog's load (mysql-test/suite/purgelab): 8 connections
update 64 rows, about 12,000 commits a second on two CPUs, which purge
parses faster than they commit; sampled every 50 ms as the test reads the
history; purge stalls for stall seconds every 1.5 s (0: never) */
params shutdown_load(double stall, uint64_t target)
{
  params p;
  p.connections= 8;
  p.trx_cpu= 100e-6;
  p.think_cpu= 40e-6;
  p.durable_time= 20e-6;
  p.parse_cpu= 20e-6;
  p.hot_rows= 64;
  p.hot_share= 1;
  p.noise= 0.1;
  p.noise_period= 0.5;
  p.stall_every= 1.5;
  p.stall_length= stall;
  p.sample_every= 0.05;
  p.target= target;
  p.seconds= 20;
  return p;
}

/* What shutdown_backlog showed in CI at a target of 1000: on a quiet
machine the law holds that load's history far under the target, but
where the machine stalls purge for 0.2 s now and then, what commits in
the stall (about 2,400) takes the history past 1.1 T before the law, which
answers at purge's pace (after each batch, or every POLL_MAX within one),
can act, and the 95th percentile of 50 ms readings is the unthrottled
one's.  A target of 1000 is about 80 ms of this load's commits. */
TEST(ServerModel, APurgeStallOutrunsASmallTarget)
{
  const params quiet= shutdown_load(0, 1000), stalls= shutdown_load(0.2, 1000);
  const verdict q= judge(quiet, run(quiet), 5),
    s= judge(stalls, run(stalls), 5),
    u= judge(stalls, run(unthrottled(stalls)), 5);
  print("law, quiet", quiet, q);
  print("law, stalls", stalls, s);
  print("unthrottled, stalls", stalls, u);
  ASSERT_GE(q.throughput, 10000) << "not the load of shutdown_backlog";
  EXPECT_LE(q.p95, 0.5);
  EXPECT_GT(s.p95, 1.1);
  EXPECT_GE(s.p95, 0.8 * u.p95) << "the law answered within the stalls";
}

/* The hot-row plant as the server showed it: with everyone inside, most
connections wait for a row lock and the throughput collapses (the
server at 4,096: 800-1,100 commits a second, against 4,000-7,000 with a
bound of 10-500); and the commit rate alone, without a bound on the
transactions let in, misses the target (the server at 2,048: 1.52 T, at
0.43 of the throughput with the bound). */
TEST(ServerModel, TheHotRowPlantAndTheRateAlone)
{
  for (unsigned n : {2048u, 4096u})
  {
    const params p= hot_rows(n);
    const verdict u= judge(p, run(unthrottled(p))),
      r= judge(p, run(rate_alone(p))), v= judge(p, run(p));
    print("unthrottled", p, u);
    print("the rate alone", p, r);
    print("law", p, v);
    params q= p;
    q.fixed_bound= 64;
    q.fixed_drain= adaptive_controller::DRAIN_WIDTH;
    const verdict f= judge(q, run(q));
    print("fixed bound 64", q, f);
    EXPECT_LE(u.throughput, 0.4 * f.throughput);
    EXPECT_GT(r.p95, 1.1) << "the rate alone held the target";
    EXPECT_LE(v.p95, 1.1);
    EXPECT_GE(v.throughput, 2 * r.throughput);
  }
}

/* The law's bound on hot rows as the server showed it at 2,048 and 4,096
connections (the history at 0.86-0.88 T): the lock rule cuts the bound to
half of those let in whenever more wait for a lock, and again as those let
in leave while the queue lasts, not to the few that run (on the server,
at 4 or less in 2-4 samples of a run, against 12-13 cut to those that
run).  This plant does not penalise bounds over a few hundred as the
server does, so it cannot judge a change that lets the bound grow there
(design note, section 7). */
TEST(ServerModel, HotRowsAt4096AsOnTheServer)
{
  const params p= hot_rows(4096);
  const verdict v= judge(p, run(p));
  print("law", p, v);
  EXPECT_LE(v.p95, 1.1);
  EXPECT_GE(v.least_bound, 10u);
}

/* Known failure of this law (the server shows it too): with hot rows it
holds the history well under the target at 0.85-0.92 of the throughput of
the best fixed bound.  Run it with --gtest_also_run_disabled_tests. */
TEST(ServerModel, DISABLED_HotRowsAtTheBestBoundsThroughput)
{
  for (unsigned n : {512u, 2048u, 4096u})
  {
    const params p= hot_rows(n);
    const verdict v= judge(p, run(p));
    const best b= best_bound(p, FROM);
    print("law", p, v);
    std::printf("best fixed bound %u: %.0f tps at p95 %.2f T\n", b.bound,
                b.throughput, b.p95 / double(p.target));
    EXPECT_LE(v.p95, 1.1);
    EXPECT_GE(v.throughput, 0.95 * b.throughput);
  }
}

/* The model judges a fix only once it shows the failure that the server
showed.  The law at 43587ff (law-43587ff/, run as 43587ff's server ran it)
failed on the default load on the server: history p95 0.45-0.56 T at
0.79-0.87 of unthrottled qps (the current law: 0.81-0.91 T at 0.99-1.07).
There the window stayed at its start (15 and 18 of 256, the square root's
dither), the history fell to a few dozen within a second of the law coming
in, the law went out at an empty history, the gate opened, and the history
rose back to half the target: in force in 8-44% of the samples.  The
bounds are halfway between the two laws' ranges on the server, so that
the test tells 43587ff's law from the current one as the server did: p95
at most 0.7 T ((0.56 + 0.81) / 2, rounded up), throughput at most 0.93 of
unthrottled ((0.87 + 0.99) / 2).
Known failure of this plant: it does not reproduce that miss.  The law
comes in within the first second and is in force at every sample after
(its history, 500-2,600 waiting for the truncation every 0.3 s, is never
empty, and the waiters keep it in force); its window wanders between 25 and
36, where throughput is flat: p95 0.26 T, at 1.01 of unthrottled.  What the plant
lacks is what emptied the server's history with 15 let in, and what cost
the server its throughput, which this model charges nothing for (a wait at
the gate, a gate opened to 240 waiters at once).  Run it with
--gtest_also_run_disabled_tests. */
TEST(ServerModel, DISABLED_TheLawOf43587ffOnTheDefaultLoad)
{
  const params p= default_load();
  const result r= run_43587ff(p);
  const verdict v= judge(p, r), c= judge(p, run(p)),
    u= judge(p, run(unthrottled(p)));
  print("unthrottled", p, u);
  print("law", p, c);
  print("law at 43587ff", p, v);
  std::printf("throughput over unthrottled: law %.2f, law at 43587ff %.2f;"
              " 43587ff's bound in force in %u s, history under 0.1 T in"
              " %u s\n", c.throughput / u.throughput,
              v.throughput / u.throughput, r.bound_seconds(FROM, p.seconds),
              r.seconds_where(FROM, p.seconds, [&](const sample &s)
                              { return s.history < 0.1 * double(p.target); }));
  EXPECT_LE(v.p95, 0.7);
  EXPECT_LE(v.throughput, 0.93 * u.throughput);
}
