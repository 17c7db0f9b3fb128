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

/* A fluid model of a server under a write load, driven by the real
adaptive_controller, whose output goes through the real admission_gate's
resize() (which maps a rate without a bound to ~0U and no rate to no bound
at all), with an injected clock (closed_loop-t.cc):

 - connections: a closed loop without think time; those the gate lets in
   run, the others wait.  n running commit X(n) = peak * share(n) a second:
   share rises linearly to 1 at the knee and falls past it as
   1 / (1 + contention * (n / knee - 1)).  A transaction takes H = n / X(n)
   (Little's law); the gate admits at most the law's rate (its token
   bucket, modelled as a fluid: at most that rate), and at most the law's
   bound W (adaptive_controller::concurrency()) at once;
 - optionally an open-loop offered load: arrivals at most `offered` a
   second, so that the commit rate is at most that, with those inside
   fewer by Little's law;
 - purge parses the unparsed history at `purge` transactions a second, less
   cpu_share of it when all connections run (in proportion to those that
   run: they take the CPUs), and, with commit_cpu, the share of it that
   what commits takes (on 2 cores a commit costs the CPU of many
   parses); a read view held in
   [view_from, view_to) keeps it from parsing what commits meanwhile,
   and once every rollback segment has been written after it (as many
   commits as segments: transactions take them in turn) keeps truncation
   from freeing anything; the coordinator counts what it keeps as held
   once the view has stood TAU_RATE, as purge_view_held_trx() does;
 - undo log truncation (truncation_pass > 0) frees parsed history only in
   rollback segments that no transaction references, once a pass: of 128
   segments, those the drain withholds (drain_width()) free once the
   transactions in them have ended one after another, the others with the
   chance that none of the
   running transactions took them (exp(-n / segments));
 - the coordinator evaluates the law after each batch: every
   batch / purge seconds, within [1 ms, POLL_MAX], and with an empty
   history publishes no limit, as srv0purgelab_adaptive.cc does; it tells
   the law the history parsed and not truncated (pending), those that want in
   (gate::want(): inside, or let in and waiting), whether the rate
   limit, not only the bound, held connections back, and, on hot-row
   plants (lock_queues), those inside past the knee as waiting for a
   row lock;
 - noise: optionally, the commit rate times a random factor, uniform, of
   mean 1, drawn every noise_period (a fixed seed), as the per-second
   throughput of a real load swings, more on hot rows than on uniform ones. */

#ifndef purgelab_closed_loop_h
#define purgelab_closed_loop_h

#include "trx0adaptive.h"
#include <algorithm>
#include <cstdint>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace purgelab_sim
{
using purge_throttle::adaptive_controller;
using purge_throttle::admission_gate;

struct plant_params
{
  /** the law's floor, as a share of purge's rate (for the tests' bounds) */
  static constexpr double MIN_RATE_SHARE= adaptive_controller::MIN_SHARE;
  /** transactions that a purge batch parses (innodb_purge_batch_size
  pages hold a few hundred small transactions) */
  static constexpr double BATCH= 300;
  static constexpr double N_RSEGS= 128;

  double connections= 256;
  double peak= 40000;       /* commits/s at the knee */
  double knee= 32;
  double contention= 0;
  double rise= 1;           /* below the knee X ~ n^rise: 1 linear, less
                               where connections queue on row locks yet
                               throughput still rises */
  double purge= 20000;      /* transactions parsed per second */
  double cpu_share= 0;      /* of purge's capacity taken by all connections */
  /** commits a second that take all of purge's CPUs: purge's capacity
  falls linearly with the commit rate to none at it (0: it does not) */
  double commit_cpu= 0;
  /** past the knee purge's capacity falls as throughput does with this
  contention: on hot rows purge parses the undo of the rows on which the
  open transactions queue (0: it does not) */
  double purge_contention= 0;
  double truncation_pass= 0;/* seconds per truncation pass; 0: at once */
  double target= 10000;
  double seconds= 0;        /* 0: long enough to settle */
  double view_from= -1, view_to= -1;
  /** throughput noise: every noise_period the commit rate is multiplied by
  an independent factor of mean 1 and this standard deviation (uniform) */
  double noise= 0;
  double noise_period= double(adaptive_controller::TAU_RATE) * 1e-6;
  /** an open-loop cap on the commit rate: the load offered, commits a
  second (0: none, a closed loop) */
  double offered= 0;
  /* from a time on, the load's peak times a factor */
  std::vector<std::pair<double, double>> load_steps;
  /** connections that run a transaction when the gate closes stay until
  it commits, holding no ticket, while the gate lets others in beside
  them; false: the connections inside follow the gate at once */
  bool crowd= false;
  /** hot rows: past the knee every hot row is held, and each connection
  inside beyond the knee waits for a row lock (the law's lock_waits) */
  bool lock_queues= false;
  /** start from an empty history, however long the target takes to reach
  (the sweep's unthrottled reference of the steady state) */
  bool start_empty= false;

  double throughput_share(double n) const
  {
    return n <= knee ? std::pow(n / knee, rise)
      : 1 / (1 + contention * (n / knee - 1));
  }
  double load_factor(double t) const
  {
    double f= 1;
    for (const auto &s : load_steps)
      if (t >= s.first)
        f= s.second;
    return f;
  }
  double commit_rate(double n, double t) const
  { return n > 0 ? peak * load_factor(t) * throughput_share(n) : 0; }
  double unthrottled(double t) const
  {
    const double x= commit_rate(connections, t);
    return offered > 0 ? std::min(x, offered) : x;
  }
  /** purge's capacity while n connections run transactions: they take
  the CPUs from purge in proportion to their number, and past the knee
  they contend with it (purge_contention) */
  double purge_capacity(double n) const
  {
    return purge * (1 - cpu_share * std::min(1.0, n / connections)) /
      (n <= knee ? 1 : 1 + purge_contention * (n / knee - 1));
  }
  /** purge's capacity while n connections run and commit x a second */
  double purge_capacity(double n, double x) const
  {
    return purge_capacity(n) *
      (commit_cpu > 0 ? std::max(0.0, 1 - x / commit_cpu) : 1);
  }
  /** the most that commits while purge keeps up, n connections running */
  double purge_keeps_up(double n) const
  {
    /* x = P (1 - x / K) at P = purge_capacity(n), K = commit_cpu */
    const double c= purge_capacity(n);
    return commit_cpu > 0 ? c * commit_cpu / (c + commit_cpu) : c;
  }
  /** seconds between evaluations of the law */
  double update_interval() const
  {
    return std::max(1e-3, std::min(double(purge_throttle::POLL_MAX) * 1e-6,
                                   BATCH / purge));
  }
  /** whether any throttle can hold the target within 10%: it is at least
  ten times what commits between two purge batches (when the law acts)
  and between two truncation passes (when the history falls), at the rate
  that purge sustains */
  bool holdable() const
  {
    return target >= 10 * std::min(unthrottled(0), purge) *
      std::max(update_interval(), truncation_pass);
  }
  /** the share of parsed history that one truncation pass frees with n
  running and `withheld` segments withheld */
  double truncation_share(double n, double withheld) const
  {
    const double available= N_RSEGS - withheld;
    /* a withheld segment frees once the k = n / 128 transactions in it
    have ended, one after another on the same rows: about k H after it
    was withheld */
    const double h= n / std::max(1e-9, commit_rate(n, 0)) *
      std::max(1.0, n / N_RSEGS);
    return withheld / N_RSEGS * std::min(1.0, truncation_pass / h) +
      available / N_RSEGS * std::exp(-n / available);
  }
  std::string describe() const
  {
    char b[400];
    std::snprintf(b, sizeof b, "connections %g, purge %g/s, target %g,"
                  " peak %g/s, knee %g, rise %g, contention %g, truncation"
                  " pass %g s, noise %.3g/%gs, offered %g", connections,
                  purge, target, peak, knee, rise, contention,
                  truncation_pass, noise, noise_period, offered);
    return b;
  }
};

struct second
{
  double history= 0;   /* mean over the second */
  double commits= 0;   /* in the second */
  bool limited= false; /* connections waited at the gate in it */
  bool in_force= false;/* a limit was published in it */
  unsigned bound= 0;   /* the least bound W in force in it (0: none) */
};

struct run_result
{
  std::vector<second> seconds;
  bool settled= false;
  double settle_time= 0; /* from the start of the approach (or a backlog) */
  /** of it, the least that any throttle needs: draining a backlog from 2 T
  to 1.1 T at the floor (0 when the approach starts from below) */
  double settle_least= 0;
  double p95= 0;         /* of the history sampled every 10 ms, settled */
  double swing= 0;       /* (max - min) / 2 of 1 s means, settled */
  double throughput= 0;  /* mean commits/s, settled */
  double best= 0;        /* the best rate that holds the target */
  double last_history= 0;
  unsigned held_empty= 0;
  /* the history every 10 ms, and when */
  std::vector<double> fine, fine_t;

  struct verdict { double p95, swing, throughput; };
  /** the history's p95 and swing, and the commit rate, in [a, b) s */
  verdict judge(double a, double b) const
  {
    std::vector<double> h;
    for (size_t i= 0; i < fine.size(); i++)
      if (fine_t[i] >= a && fine_t[i] < b)
        h.push_back(fine[i]);
    std::sort(h.begin(), h.end());
    verdict v{h.empty() ? 0 : h[size_t(0.95 * double(h.size() - 1))], 0, 0};
    double lo= 1e300, hi= 0, commits= 0;
    for (size_t i= size_t(a); i < size_t(b) && i < seconds.size(); i++)
    {
      lo= std::min(lo, seconds[i].history);
      hi= std::max(hi, seconds[i].history);
      commits+= seconds[i].commits;
    }
    v.swing= (hi - lo) / 2;
    v.throughput= commits / (b - a);
    return v;
  }

  double history_at(double t) const { return seconds.at(size_t(t)).history; }
  unsigned limited_at(double t) const
  { return seconds.at(size_t(t)).limited; }
  unsigned limited_between(double a, double b) const
  {
    unsigned n= 0;
    for (size_t i= size_t(a); i < size_t(b) && i < seconds.size(); i++)
      n+= seconds[i].limited;
    return n;
  }
  unsigned in_force_between(double a, double b) const
  {
    unsigned n= 0;
    for (size_t i= size_t(a); i < size_t(b) && i < seconds.size(); i++)
      n+= seconds[i].in_force;
    return n;
  }
  unsigned bound_between(double a, double b) const
  {
    unsigned n= 0;
    for (size_t i= size_t(a); i < size_t(b) && i < seconds.size(); i++)
      n+= seconds[i].bound != 0;
    return n;
  }
  /** the largest 1 s mean of the history in [a, b) */
  double max_history(double a, double b) const
  {
    double m= 0;
    for (size_t i= size_t(a); i < size_t(b) && i < seconds.size(); i++)
      m= std::max(m, seconds[i].history);
    return m;
  }
  double min_commit_rate_after(double t) const
  {
    double m= 1e300;
    for (size_t i= size_t(t) + 1; i < seconds.size(); i++)
      m= std::min(m, seconds[i].commits);
    return m;
  }
};

/** the best commit rate at which the plant holds its target, searched
over the rate and the bound (the load steps and the noise aside): at a
rate r under what n inside commit, fewer are inside (Little's law), so the
search over the connections inside n, each at the rate X(n) that they
commit, covers both */
inline double best_rate(const plant_params &p)
{
  double best= 0;
  for (double n= 1; n <= p.connections; n= std::max(n + 1, n * 1.02))
  {
    double r= std::min(p.commit_rate(n, 0), p.purge_keeps_up(n));
    if (p.offered > 0)
      r= std::min(r, p.offered);
    if (p.truncation_pass > 0)
      /* parsed history waiting for truncation: at most the target */
      r= std::min(r, std::max(0.0, p.target - n) * p.truncation_share
                  (n, purge_throttle::adaptive_controller::DRAIN_WIDTH) /
                  p.truncation_pass);
    best= std::max(best, r);
  }
  /* past a knee this is more than letting every connection in commits */
  return best;
}

inline double percentile(std::vector<double> v, double q)
{
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[size_t(q * double(v.size() - 1))];
}

/** Run the plant under the law (or unthrottled). */
inline run_result run(const plant_params &p, bool throttled= true)
{
  const double fill= p.target / std::max(1.0, p.unthrottled(0) - p.purge);
  /* a target that the load takes over a minute to reach starts from a
  backlog of twice the target, as after a read view was released */
  const bool backlog= fill > 60 && !p.start_empty;
  /* (from an empty history, a load that takes over a minute to fill the
  target is judged after a minute: its steady state is under it) */
  const double recover= backlog
    ? p.target / ((1 - plant_params::MIN_RATE_SHARE) * p.purge)
    : std::min(fill, 60.0);
  const double seconds= p.seconds > 0 ? p.seconds : recover + 120;
  const double dt= std::max(1e-4, std::min(1e-2, 20 / p.unthrottled(0)));
  const double u_int= p.update_interval();

  adaptive_controller c;
  admission_gate gate;
  double unparsed= backlog ? 2 * p.target : 0, blocked= 0, pending= 0;
  double parsed= 0, next_update= 0;
  /* commits since the view was opened */
  double view_commits= 0;
  /* the noise factor and when it is drawn next; a fixed seed */
  double noise_factor= 1, next_noise= 0;
  uint64_t seed= 88172645463325252ULL;
  double next_pass= p.truncation_pass, next_sample= 0;
  uint64_t limit= 0;
  unsigned concurrency= 0;   /* the bound W the gate applies (0: none) */
  /* connections inside that hold no ticket (plant_params::crowd) */
  double crowd= 0;
  /* those that want in, as gate::want() counts them, at the last step */
  double want= p.connections;
  run_result r;
  second cur;
  double cur_steps= 0;
  std::vector<double> &fine= r.fine, &fine_t= r.fine_t;

  const size_t steps= size_t(seconds / dt);
  for (size_t i= 0; i < steps; i++)
  {
    const double t= double(i) * dt;
    const double history= unparsed + blocked + pending;
    const bool view= t >= p.view_from && t < p.view_to;
    if (!view && blocked > 0)
    {
      unparsed+= blocked;  /* the view was released */
      blocked= 0;
    }
    if (!view)
      view_commits= 0;
    /* every rollback segment was written after the view: truncation may
    free none of them while it is open */
    const bool segments_held= view && view_commits >= plant_params::N_RSEGS;
    double n= p.connections;
    if (concurrency && concurrency < n)
      n= concurrency;
    if (p.noise > 0 && t >= next_noise)
    {
      next_noise= t + p.noise_period;
      seed^= seed << 13; seed^= seed >> 7; seed^= seed << 17;
      const double u= double(seed >> 11) / 9007199254740992.0;   /* [0, 1) */
      noise_factor= std::max(0.0, 1 + p.noise * std::sqrt(3.0) * (2 * u - 1));
    }
    /* commits, and of them those that the gate let in (with a ticket),
    and the connections inside, of them those the gate let in */
    double x;
    bool waiting, rate_bound;
    if (!p.crowd)
    {
      /* what those the bound lets in commit, and what is offered */
      const double inside_rate= p.commit_rate(n, t) * noise_factor;
      const double free_rate= p.offered > 0
        ? std::min(inside_rate, p.offered) : inside_rate;
      x= limit ? std::min(free_rate, double(limit)) : free_rate;
      if (x < inside_rate && x > 0)
        /* admitted at x a second, each staying H(n) = n / X(n): n solves
        X(n) = x, on the rising side of the knee */
        n= std::min(n, std::pow(x / (p.peak * p.load_factor(t) *
                                     noise_factor), 1 / p.rise) * p.knee);
      /* the rate limit, not only the bound, holds connections back */
      rate_bound= limit && x < free_rate;
      /* connections wait at the gate: held by the rate or the bound */
      waiting= rate_bound ||
        (limit && concurrency && concurrency < p.connections &&
         !(p.offered > 0 && p.offered <= inside_rate));
      /* gate::want(): those inside, or those let in and those waiting;
      an open-loop load wants in as much as it arrives */
      want= waiting ? p.connections : n;
    }
    else
    {
      /* without a limit or a bound everyone is in, untracked; with
      either, the gate lets up to its bound in beside those still inside,
      who commit at the rate of all inside and then queue at the gate */
      const bool gated= limit || concurrency;
      if (!gated)
        crowd= p.connections;
      double n_gate= gated ? std::min(p.connections - crowd, n) : 0;
      const double all= crowd + n_gate;
      const double free_rate= p.commit_rate(all, t) * noise_factor;
      const double share= all > 0 ? n_gate / all : 0;
      double x_gate= free_rate * share;
      rate_bound= limit && x_gate > double(limit);
      if (rate_bound)
      {
        /* admitted at the limit, each staying as long: fewer inside */
        n_gate*= double(limit) / x_gate;
        x_gate= double(limit);
      }
      const double x_crowd= free_rate * (1 - share);
      x= x_gate + x_crowd;
      crowd= std::max(0.0, crowd - x_crowd * dt);
      n= crowd + n_gate;
      waiting= gated && n < p.connections - 0.5;
      /* inside (the crowd and those let in), or let in and waiting */
      want= std::max(n, p.connections - n + n_gate);
    }
    /* this step runs under the limit published before it */
    const bool limited= limit != 0;
    if (throttled && t >= next_update)
    {
      next_update= t + u_int;
      const uint64_t now= uint64_t(t * 1e6) + 1;
      if (history < 1)
        limit= c.update(0, 0, 0, 0, 0, false, 0, false);
      else
      {
        /* the view counts as blocking once it has stood TAU_RATE
        (adaptive_controller::view_holds()) */
        const bool holds= view && adaptive_controller::view_holds
          (uint64_t((t - p.view_from) * 1e6));
        /* purge_view_held_trx(): what it keeps from parsing, and the
        history of the segments written since */
        const double held= !holds ? 0 : segments_held ? history : blocked;
        const uint64_t out= adaptive_controller::output(uint64_t(history),
                                                        uint64_t(held));
        /* innodb_row_lock_current_waits: those inside past the knee */
        const double waits= p.lock_queues ? std::max(0.0, n - p.knee) : 0;
        /* purge progresses while anything is left that it may drain, as
        purge_throttle_adaptive_after_batch() tells the law */
        limit= c.update(now, out, uint64_t(pending), uint64_t(parsed),
                        uint64_t(p.target), out != 0, uint64_t(want),
                        rate_bound, uint64_t(want), uint64_t(waits));
      }
      /* gate::publish(): the gate's bound is the law's; ~0U is a rate
      without a bound */
      const unsigned k= gate.resize(now * 1000, limit, c.concurrency());
      concurrency= k == ~0U ? 0 : k;
      /* the coordinator saw an empty history: nobody may be held */
      if (history < 1 && (limit || concurrency))
        r.held_empty++;
    }
    cur.in_force= cur.in_force || limited;
    if (concurrency && (!cur.bound || concurrency < cur.bound))
      cur.bound= concurrency;

    /* commits */
    (view ? blocked : unparsed)+= x * dt;
    if (view)
      view_commits+= x * dt;
    /* purge */
    const double done= std::min(unparsed, p.purge_capacity(n, x) * dt);
    unparsed-= done;
    parsed+= done;
    if (p.truncation_pass <= 0)
      ;                      /* truncation keeps up */
    else
    {
      pending+= done;
      if (t >= next_pass)
      {
        next_pass= t + p.truncation_pass;
        if (!segments_held)
          pending-= pending * p.truncation_share(n, c.drain_width());
      }
    }
    if (p.truncation_pass <= 0)
      pending= 0;
    /* samples */
    cur.history+= history;
    cur.commits+= x * dt;
    cur.limited= cur.limited || waiting;
    cur_steps++;
    if (t >= next_sample)
    {
      next_sample= t + 0.01;
      fine.push_back(history);
      fine_t.push_back(t);
    }
    if (size_t((t + dt) / 1.0) > r.seconds.size())
    {
      cur.history/= std::max(1.0, cur_steps);
      r.seconds.push_back(cur);
      cur= second();
      cur_steps= 0;
    }
  }
  /* settled: from the first second after the last one whose mean history
  is outside T +- 10%, with at least 30 s left; where the peak of the
  plant's throughput is under what purge drains, a history under that
  while it commits at its best rate is settled too */
  const size_t ns= r.seconds.size();
  r.best= best_rate(p);
  const bool peak_under_purge= r.best < 0.95 * p.purge;
  size_t from= 0;
  for (size_t i= ns; i--; )
    if (r.seconds[i].history > 1.1 * p.target ||
        (r.seconds[i].history < 0.9 * p.target &&
         !(peak_under_purge && r.seconds[i].commits >= 0.95 * r.best)))
    {
      from= i + 1;
      break;
    }
  r.last_history= ns ? r.seconds.back().history : 0;
  if (from + 30 > ns)
    return r;
  /* the approach to the target starts once the history first exceeds
  half of it; after a backlog, at the start */
  double start= 0;
  if (!backlog)
    for (size_t i= 0; i < ns; i++)
      if (r.seconds[i].history > 0.5 * p.target)
      {
        start= double(i);
        break;
      }
  r.settled= true;
  r.settle_time= std::max(0.0, double(from) - start);
  if (backlog)
    r.settle_least= 0.9 * p.target /
      ((1 - plant_params::MIN_RATE_SHARE) * std::min(p.purge,
                                                     p.unthrottled(0)));
  /* judge the steady state: 10 s after settling */
  /* (after a backlog, once what is left over T has drained at the
  floor: no throttle drains it faster) */
  const double left= std::max(0.0, r.seconds[from].history - p.target) /
    ((1 - plant_params::MIN_RATE_SHARE) * std::min(p.purge, p.unthrottled(0)));
  const size_t judge= std::min(ns - 20, from + 10 + size_t(left));
  const run_result::verdict v= r.judge(double(judge), double(ns));
  r.p95= v.p95;
  r.swing= v.swing;
  r.throughput= v.throughput;
  return r;
}

/** The sweep's worst cases per region, printed:
by purge capacity (1e3 to 1e6 a second), and by what the unthrottled plant
does: its history stays under T (the law must cost nothing), it does not
and the target is holdable (the law must hold it), or the target is under
ten updates' commits (too fast to hold: a loose bound) */
struct sweep_report
{
  enum kind { UNDER, HOLDS, TOO_FAST };
  unsigned runs= 0;
  struct region
  {
    unsigned n= 0;
    /* the worst p95/T: its highest (and for HOLDS its lowest) */
    double p95_hi= 0, p95_lo= 1e300;
    /* the worst throughput, against the best rate (HOLDS, TOO_FAST) or
    against the unthrottled run (UNDER) */
    double throughput= 1e300;
    /* UNDER: seconds judged with a limit in force, and with someone held */
    unsigned in_force= 0, held= 0;
    std::string worst_p95, worst_throughput;
  } regions[3][4];
  void add(kind k, const plant_params &p, double p95, double throughput,
           double against, unsigned in_force= 0, unsigned held= 0)
  {
    runs++;
    region &g= regions[k][std::min(3, std::max(0, int(std::lround
                                                   (std::log10(p.purge)))
                                         - 3))];
    g.n++;
    if (p95 / p.target > g.p95_hi)
    {
      g.p95_hi= p95 / p.target;
      g.worst_p95= p.describe();
    }
    g.p95_lo= std::min(g.p95_lo, p95 / p.target);
    if (against > 0 && throughput / against < g.throughput)
    {
      g.throughput= throughput / against;
      g.worst_throughput= p.describe();
    }
    g.in_force= std::max(g.in_force, in_force);
    g.held= std::max(g.held, held);
  }
  void print(FILE *f) const
  {
    static const char *what[]= {
      "unthrottled under T (throughput vs unthrottled)",
      "holdable (throughput vs best)",
      "too fast to hold (throughput vs best)"};
    static const char *name[]= {"1e3", "1e4", "1e5", "1e6"};
    std::fprintf(f, "sweep: %u runs asserted\n", runs);
    for (unsigned k= 0; k < 3; k++)
    {
      std::fprintf(f, "%s:\n", what[k]);
      for (unsigned i= 0; i < 4; i++)
      {
        const region &g= regions[k][i];
        if (!g.n)
          continue;
        std::fprintf(f, "  purge %s/s: %u runs, p95/T %.3f..%.3f, worst"
                     " throughput %.3f", name[i], g.n, g.p95_lo, g.p95_hi,
                     g.throughput);
        if (k == UNDER)
          std::fprintf(f, ", most seconds in force %u, held %u", g.in_force,
                       g.held);
        std::fprintf(f, "\n    worst p95: %s\n    worst throughput: %s\n",
                     g.worst_p95.c_str(), g.worst_throughput.c_str());
      }
    }
  }
};

/** A plant fitted to a measured load (calibrated_runs()) */
struct calibrated
{
  const char *run;
  /** the measured load phase, seconds */
  double seconds;
  plant_params plant;
};

std::vector<calibrated> calibrated_runs();

} // namespace purgelab_sim

#endif
