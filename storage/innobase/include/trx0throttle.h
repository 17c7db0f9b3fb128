/*****************************************************************************

Copyright (c) 2026, purgelab developers.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License as published by the Free Software
Foundation; version 2 of the License.

This program is distributed in the hope that it will be useful, but WITHOUT
ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS
FOR A PARTICULAR PURPOSE. See the GNU General Public License for more details.

You should have received a copy of the GNU General Public License along with
this program; if not, write to the Free Software Foundation, Inc.,
51 Franklin Street, Fifth Floor, Boston, MA 02110-1335 USA

*****************************************************************************/

/**************************************************//**
@file include/trx0throttle.h
Purge lag throttling: the pure decision logic.

When the purge of committed transaction history falls behind
(history length above innodb_max_purge_lag), DML threads are delayed
per row so that purge can catch up.  MDEV-29401 coupled that delay to
purge itself: a delayed thread wakes the purge coordinator, the delay
applies only while purge makes progress, and the coordinator does not
go idle while throttling.  innodb_purge_coupled_throttle=OFF restores the
uncoupled (pre-MDEV-29401) semantics for A/B measurements.

Nothing here depends on InnoDB's state, so that it can be unit tested;
srv0purgelab.cc applies it to the server.
*******************************************************/

#ifndef trx0throttle_h
#define trx0throttle_h

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "trx0drain.h"

namespace purge_throttle
{

/** The per-row DML delay of upstream's formula (trx_purge() in 10.11.18):
min(max_delay, 10000 * history / lag - 5000) microseconds once the history
exceeds the lag, else 0.
@param history    history length (committed transactions not purged)
@param lag        innodb_max_purge_lag (0 = no throttling)
@param max_delay  innodb_max_purge_lag_delay (0 = no throttling)
@return delay in microseconds */
constexpr uint64_t formula_delay(uint64_t history, uint64_t lag,
                                 uint64_t max_delay) noexcept
{
  return !lag || !max_delay || history <= lag
    ? 0
    : std::min<uint64_t>(max_delay, 10000 * history / lag - 5000);
}

/** The delay to publish after a purge batch.
@param coupled      innodb_purge_coupled_throttle
@param batch_pages  undo log pages the batch handled; 0 means that purge
                    could not progress (for example, an old read view)
@param history      history length before the batch
@param lag          innodb_max_purge_lag
@param max_delay    innodb_max_purge_lag_delay
@return per-row delay in microseconds */
constexpr uint64_t batch_delay(bool coupled, size_t batch_pages,
                               uint64_t history, uint64_t lag,
                               uint64_t max_delay) noexcept
{
  /* Delaying DML while purge cannot progress only slows the server down
  without shortening the history. */
  return coupled && !batch_pages
    ? 0 : formula_delay(history, lag, max_delay);
}

/** @return whether a delayed DML thread should wake the purge coordinator */
constexpr bool dml_wakes_purge(bool coupled) noexcept { return coupled; }

/** Whether the purge coordinator keeps running after a batch.
@param coupled      innodb_purge_coupled_throttle
@param batch_pages  undo log pages the batch handled
@param throttling   DML is being throttled: the history exceeds the point
                    from which the selected throttle acts (not the delay
                    published after this batch, which coupled is 0 when
                    the batch found nothing)
@return whether to run another batch rather than go idle */
constexpr bool coordinator_continues(bool coupled, size_t batch_pages,
                                     bool throttling) noexcept
{
  return batch_pages || (coupled && throttling);
}

/** Shortest and longest wait of the coordinator before it looks again
after batches that found nothing to purge while DML is throttled, in
microseconds: the wait doubles with each such batch, so that an old read
view costs at most 1e6 / POLL_MAX wake-ups a second */
constexpr uint64_t POLL_MIN= 10000, POLL_MAX= 100000;

/** @return the coordinator's wait before it looks again, in microseconds
@param empty_batches  consecutive batches that found nothing to purge */
constexpr uint64_t poll_interval(unsigned empty_batches) noexcept
{
  return empty_batches <= 1 ? POLL_MIN
    : empty_batches > 4 ? POLL_MAX
    : POLL_MIN << (empty_batches - 1);
}

/** The fork's adaptive throttle (innodb_purge_throttle=adaptive): one
control law that holds the history length at a target T
(innodb_max_purge_lag).  The purge coordinator evaluates it after each
batch (update()); admission_gate enforces its output.

  x = history - blocked            the history that a throttle can bound
  r = what purge parses per second, averaged over TAU_RATE
  e = T - x
  I = integral of e / (TAU * TAU_I) dt, where the actuator follows, |I| <= r
  C = max(MIN_SHARE * r, r + e / TAU + I)   read-write commits per second
  W                                connections let in at once: the window
                                   that seeks the peak of the measured
                                   commit rate (concurrency_window)

The law comes into force once x > ENGAGE * T and stays in force while
connections wait and the history is not empty, so that the limit rises
smoothly rather than letting every waiter in at once; otherwise C = 0
(no limit) and I = 0.  r feeds the drain rate forward; e / TAU closes
the gap in about TAU; I removes what r misses: history that waits for undo
log truncation, a purge that runs slower than it parses.  The same
equations cover a purge-bound, a truncation-bound and a view-blocked
history: in the last, x excludes what the oldest read view keeps, and
without progress nothing is throttled (MDEV-29401).
Rationale and measurements: docs/adaptive-throttle.md. */
class adaptive_controller
{
public:
  /** Share of the target over which the law is in force (and the drain of
  rollback segments widens, the coordinator polls, a commit wakes it).
  Half: the approach from there to T takes about TAU at a limit of
  r + T / (2 TAU), so the history does not overshoot T while the rate
  estimate forms. */
  static constexpr double ENGAGE= 0.5;
  /** Time in which the proportional term closes the gap to the target,
  in microseconds: 2 s, several purge batches and rate windows, so that
  one batch's noise does not move the limit much, and short against the
  seconds that a history over the target costs reads */
  static constexpr uint64_t TAU= 2000000;
  /** Integral time, in microseconds, not a setting of its own: for the
  integrating plant dx/dt = C - r the loop's damping ratio is
  sqrt(TAU_I / TAU) / 2, and 4 * TAU makes it 1, critically damped: the
  fastest removal of a lasting bias of the feed-forward (history that
  waits for truncation) without overshoot */
  static constexpr uint64_t TAU_I= 4 * TAU;
  /** Time constant of the purge rate average, in microseconds: a few
  batches (a batch parses up to innodb_purge_batch_size pages), as
  CockroachDB smooths its measured drain; short against TAU, since a drop
  of purge's capacity by d overshoots the history by about d * TAU_RATE
  before the feed-forward follows */
  static constexpr uint64_t TAU_RATE= 500000;
  /** The least commit rate admitted, as a share of purge's rate: the
  throttle slows DML down, it never stops it */
  static constexpr double MIN_SHARE= 0.05;
  /** Shortest interval over which rates and the window's commits are
  measured, in microseconds: five POLL_MIN, so that a window holds several
  batches */
  static constexpr uint64_t WINDOW= 5 * POLL_MIN;
  /** Age after which a published limit lapses unless the purge batch that
  followed it still runs, in microseconds, counted from the later of the
  publication and that batch's end; also a waiter's longest wait
  while the gate lets nobody in, and an admission ticket's lease.  Ten
  times POLL_MAX: the coordinator republishes at least that often while
  the law is in force, so an older limit is not backed by a running purge */
  static constexpr uint64_t STALE= 10 * POLL_MAX;

  /** @return whether the law is in force for a history (or the coordinator
  should look again rather than go idle); no overflow for any target
  @param x       history length (- blocked)
  @param target  innodb_max_purge_lag (0 = none) */
  static constexpr bool engaged(uint64_t x, uint64_t target) noexcept
  { return target && double(x) > ENGAGE * double(target); }

  /** The measured output: what update() acts on.
  @param history  history length
  @param blocked  of it, what the oldest read view keeps purge from
                  parsing (no throttle removes it)
  @return history - blocked, at least 0 */
  static constexpr uint64_t output(uint64_t history, uint64_t blocked)
    noexcept
  { return history > blocked ? history - blocked : 0; }

  /** @return whether purge's oldest read view keeps purge from parsing
  what committed after it (output()'s `blocked`), rather than slowing it:
  a transaction that took its commit number holds the view's limit until
  its commit ends, as long as its thread waits for a CPU; over less than
  TAU_RATE that is a dip of purge's rate, which r follows, and only a view
  that stays longer is one that no throttle outwaits
  @param unmoved  microseconds since the view's limit last moved */
  static constexpr bool view_holds(uint64_t unmoved) noexcept
  { return unmoved >= TAU_RATE; }

  /** Evaluate the law after a purge batch.
  @param now       a monotonic clock, in microseconds
  @param x         output(): history - blocked
  @param purged    a counter of the committed transactions that purge has
                   parsed (it advances with every batch, unlike the history,
                   which falls in steps as undo logs are truncated)
  @param target    innodb_max_purge_lag (0 = no throttling)
  @param progress  purge can progress (no read view blocks all of it)
  @param binding   connections wait at the gate now (the law stays in
                   force while they do)
  @param rate_bound  the commit rate limit held a connection back since
                   the last update (not only the concurrency window): a
                   higher limit would admit more (anti-windup: the
                   integral grows only while it binds and connections wait)
  @return the commit rate to admit, read-write transactions per second;
  0 = no limit */
  uint64_t update(uint64_t now, uint64_t x, uint64_t purged, uint64_t target,
                  bool progress, bool binding= true, bool rate_bound= true)
    noexcept
  {
    m_target= target;
    m_x= x;
    /* in force from ENGAGE * T, and on while it binds (connections wait)
    over an empty history: the P and I terms then raise the limit until
    nobody waits, rather than letting every waiter in at once */
    m_engaged= progress && target &&
      (engaged(x, target) || (m_engaged && binding && x));
    if (!progress || !target)
      /* no rate is measured across the time that purge was blocked */
      m_now= 0;
    else if (!m_now || now - m_now >= WINDOW)
    {
      /* purge's rate is measured whenever it progresses, so that the law
      comes into force from a fresh one */
      if (m_now)
      {
        const double dt= double(now - m_now) * 1e-6;
        const double sample= double(purged > m_purged ? purged - m_purged
                                    : 0) / dt;
        const double a= dt / (dt + double(TAU_RATE) * 1e-6);
        m_rate= m_rate > 0 ? m_rate + a * (sample - m_rate) : sample;
        if (m_engaged)
          m_dt= dt;
      }
      m_now= now;
      m_purged= purged;
    }
    else if (m_engaged && m_limit)
      return m_limit;   /* within a window */
    if (!m_engaged || m_rate <= 0)
    {
      /* no wind-up across episodes */
      m_integral= 0;
      m_dt= 0;
      return m_limit= 0;
    }
    const double dt= m_dt;
    m_dt= 0;
    const double e= double(target) - double(x);
    const double tau= double(TAU) * 1e-6, tau_i= double(TAU_I) * 1e-6;
    const double floor= MIN_SHARE * m_rate;
    const double wanted= m_rate + e / tau + m_integral;
    /* anti-windup: integrate only where the actuator can follow */
    if (!(e < 0 && wanted <= floor) && !(e > 0 && !(binding && rate_bound)))
      m_integral= std::max(-m_rate, std::min(m_rate, m_integral +
                                             e * dt / (tau * tau_i)));
    const double c= std::max(floor, m_rate + e / tau + m_integral);
    return m_limit= c >= 1.8e19 ? ~uint64_t{0} >> 1
      : std::max(uint64_t{1}, uint64_t(c));
  }

  /** How many rollback segments undo log truncation may withhold at once
  (rseg_drain) while the law is in force: the drain frees history that
  purge has parsed and that waits for truncation, at no cost that the
  benchmarks could measure.
  @return the least width to apply (innodb_purge_drain_rsegs may ask for
  more) */
  unsigned drain_width() const noexcept
  { return m_engaged ? rseg_drain::ADAPTIVE_WIDTH : 0; }

  /** @return whether the law is in force since the last update() */
  bool in_force() const noexcept { return m_engaged; }
  /** @return the commit rate limit, transactions per second (0 = none) */
  uint64_t limit() const noexcept { return m_limit; }
  /** @return purge's measured rate, transactions per second */
  double purge_rate() const noexcept { return m_rate; }
  /** @return the integral term, transactions per second */
  double integral() const noexcept { return m_integral; }
  /** @return x - T at the last update(), saturated to int64_t */
  int64_t error() const noexcept
  {
    const double d= double(m_x) - double(m_target);
    return d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : int64_t(d);
  }

  /** Whether a thread that committed a read-write transaction is paced.
  @param limit          the published commit rate limit
  @param age            microseconds since the controller published it, or
                        since the purge batch that followed ended
  @param purge_running  purge is enabled and not paused
  @param in_batch       the purge batch that followed the publication runs
                        (a batch that walks long version chains can take
                        seconds; it proves that purge runs)
  @return whether to wait for a commit slot */
  static constexpr bool limit_applies(uint64_t limit, uint64_t age,
                                      bool purge_running,
                                      bool in_batch= false) noexcept
  { return limit && purge_running && (in_batch || age < STALE); }

private:
  uint64_t m_limit= 0;
  /** the clock at the start of the current window (0: none) */
  uint64_t m_now= 0;
  /** the purge counter at the start of the window */
  uint64_t m_purged= 0;
  uint64_t m_target= 0;
  uint64_t m_x= 0;
  /** purge's rate, averaged over TAU_RATE (0: none yet) */
  double m_rate= 0;
  /** the integral term I */
  double m_integral= 0;
  /** seconds since the last integration (0: none) */
  double m_dt= 0;
  bool m_engaged= false;
};
/** The connections that the gate lets run read-write transactions at once
while the law is in force: a window that seeks the peak of throughput, the
commit rate X(W) measured, by extremum seeking with a square-wave dither
and the step rule of Rprop (Riedmiller and Braun, 1993).

W dithers about a centre c: every TAU_RATE (and at least as many commits
as W: one turnover of the window) that measured X(W) (below) it moves to
the other side,
W = c (1 + DITHER)^d, d = -1, +1, -1, ...  After three such intervals at
one centre, with sides d, -d, d and rates X1, X2, X3:

  G = d (X1 - 2 X2 + X3)         the gradient's sign, free of a trend
                                 (with the intervals' spacing: the second
                                 divided difference over their midpoints)
  c <- c exp(sign(G) s)          G <= 0 (flat): down, fewer do as well
  s <- ETA_PLUS s if sign(G) is the last move's, else ETA_MINUS s,
       within [ln(1 + 1 / c), ln 2]

A rate that drifts linearly while W dithers (the connections that came in
before the law, leaving the rows to the others; a load that changes)
cancels out of G, where comparing one interval with the last would read
the drift as the effect of the last move, and carry W off in whichever
direction it was moving.  So c doubles per decision towards the peak from
afar, and settles about it by steps that halve at each reversal, down to
one connection.  It assumes nothing about how X rises with W: linearly up
to a knee, or slowly, as on hot rows, where each connection more queues on
the others' row locks yet throughput still rises.  An interval in which
the window did not bind (the commit rate did, or fewer connections wanted
in), or in which the transactions that the gate did not let in were at some
point as many as W (the connections that came in before the law, still on
the rows, set the rate of those let in), tells nothing about X(W): the
three intervals start again.  Until its first move, c is the square root
of the most connections that wanted in at once so far (running a
read-write transaction, or waiting at the gate); once it has moved, later
episodes resume where the last one left it.  No latch: admission_gate
calls it. */
class concurrency_window
{
public:
  /** Rprop's factors of the step after a move in the direction of the
  last one and after a reversal, as its authors chose them: a reversal
  halves the step (the peak lies within the last one), moves that keep
  their direction grow it by a fifth each */
  static constexpr double ETA_PLUS= 1.2, ETA_MINUS= 0.5;
  /** The largest step, in ln(connections): a doubling or a halving */
  static double max_step() noexcept { return std::log(2.0); }
  /** The dither: W alternates between c (1 + DITHER) and c / (1 +
  DITHER), a ratio of 1.21, so that a throughput that rises as slowly as
  W^0.25 still differs by 5% between the sides, while at a sharp peak
  either side commits within a few percent of it */
  static constexpr double DITHER= 0.1;

  /** Start the window, or raise its start while it has not moved: the
  transactions that run when the law comes into force miss the connections
  whose commit waits for its log write, or whose client is between two
  statements, and those show up at the gate within a turnover.  A window
  that has moved keeps its centre: X(W) measured then still holds.
  @param want  connections that want to run read-write transactions now:
               those inside, and those waiting at the gate */
  void start(uint64_t want) noexcept
  {
    const double c= std::max(1.0, std::sqrt(double(want)));
    if (m_dir || c <= m_center)
      return;
    m_center= c;
    m_step= max_step();
    m_n= 0;     /* its intervals so far were about another centre */
  }

  /** Feed a measurement window.
  @param dt       its length, in seconds
  @param commits  transactions let in by the gate that committed in it
  @param full     a connection waited for a slot in it: X depended on W
  @param most     the most transactions let in that ran at once in it: a
                  window that was neither full nor crowded stays within
                  twice that, so that it binds again within a step once
                  more connections want in
  @param clear    the read-write transactions that the gate did not let
                  in stayed fewer than W throughout it */
  void update(double dt, double commits, bool full, double most,
              bool clear= true) noexcept
  {
    m_clock+= dt;
    m_time+= dt;
    m_commits+= commits;
    m_full= m_full || full;
    m_crowded= m_crowded || !clear;
    /* (the transactions that the gate did not let in want in as well:
    they come to the gate as they commit) */
    if (!full && clear && size() > 2 * std::max(1.0, most))
    {
      m_center= std::max(1.0, 2 * std::max(1.0, most) / side());
      m_n= 0;
    }
    if (m_time < double(adaptive_controller::TAU_RATE) * (1e-6 - 1e-15) ||
        m_commits < size())
      /* (tolerating the rounding of a sum of steps) an interval lasts
      TAU_RATE, and until as many commits as W: every slot turned over,
      once on average, so that X is not read from transactions that
      outlast it */
      return;
    const double length= m_time, x= m_commits / length;
    const bool measured= m_full && !m_crowded;
    m_time= m_commits= 0;
    m_full= m_crowded= false;
    if (!measured)
    {
      m_n= 0;   /* X was not X(W): start the three again */
      return;
    }
    m_last= x;
    if (!m_n)
      m_first_side= m_side;
    m_t[m_n]= m_clock - 0.5 * length;
    m_x[m_n++]= x;
    m_side= -m_side;
    if (m_n < 3)
      return;
    m_n= 0;
    /* a rate linear in time gives 0, up to rounding */
    const double a= m_t[2] - m_t[1], b= m_t[2] - m_t[0], c= m_t[1] - m_t[0];
    const double g= m_first_side * (a * m_x[0] - b * m_x[1] + c * m_x[2]);
    const int dir= g > 1e-9 * b * (m_x[0] + m_x[1] + m_x[2]) ? 1 : -1;
    if (m_dir)
      m_step*= dir == m_dir ? ETA_PLUS : ETA_MINUS;
    m_step= std::max(std::log1p(1 / m_center), std::min(max_step(), m_step));
    m_dir= dir;
    m_center= std::max(1.0, m_center * std::exp(dir * m_step));
  }

  /** @return the window, connections (0: not started) */
  double size() const noexcept { return m_center * side(); }
  /** @return the centre of the dither, connections (0: not started) */
  double center() const noexcept { return m_center; }
  /** @return the commit rate over the last interval that measured X(W),
  per second (0: none yet) */
  double throughput() const noexcept { return m_last; }

private:
  /** @return W / c on the side of the dither now */
  double side() const noexcept
  { return m_side > 0 ? 1 + DITHER : 1 / (1 + DITHER); }

  /** c (0: not started) and the step s, in ln(connections) */
  double m_center= 0, m_step= 0;
  /** the side of the dither now (+1, -1), that of the first of the three
  intervals, and the direction of the last move of c (0: none yet) */
  int m_side= -1, m_first_side= -1, m_dir= 0;
  /** X over the intervals at the centre so far, their midpoints on
  m_clock, and their number */
  double m_x[3]= {}, m_t[3]= {};
  int m_n= 0;
  /** seconds fed to update() */
  double m_clock= 0;
  /** X over the last interval that measured X(W) (0: none) */
  double m_last= 0;
  /** the interval being measured: seconds, commits, whether it was full,
  whether it was not clear of those the gate did not let in */
  double m_time= 0, m_commits= 0;
  bool m_full= false, m_crowded= false;
};

/** Admission control for the adaptive throttle's output, in two stages: at
most `rate` admissions a second (a token bucket WINDOW deep), and at most
concurrency() connections running read-write transactions at once
(concurrency_window); the others wait, holding nothing, until a token
accrues or one of those ends its transaction.
A connection holds a ticket: a slot and the time it was let in.  A ticket
that is not given back within LEASE expires, so that no slot is lost for
good.  Not thread-safe: callers serialise (trx0gate.h). */
class admission_gate
{
public:
  /** Tickets whose lease is tracked (a size, not a setting): more may be
  out, counted but never expired */
  static constexpr unsigned MAX_SLOTS= 1024;
  /** Age after which a ticket expires, in nanoseconds
  (adaptive_controller::STALE): many times the time from admission to
  commit of a short transaction, so that no slot is lost for good */
  static constexpr uint64_t LEASE= adaptive_controller::STALE * 1000;
  /** Shortest interval over which the window's commits are counted, in
  nanoseconds (adaptive_controller::WINDOW) */
  static constexpr uint64_t WINDOW= adaptive_controller::WINDOW * 1000;
  /** Longest wait at a gate that lets nobody in, in nanoseconds
  (adaptive_controller::STALE): a waiter waits as long as the queue
  moves */
  static constexpr uint64_t MAX_WAIT= adaptive_controller::STALE * 1000;

  struct ticket
  {
    unsigned slot= 0;
    /** when the thread was let in (0: it holds no ticket) */
    uint64_t since= 0;
  };

  admission_gate() noexcept
  {
    for (unsigned i= 0; i < MAX_SLOTS; i++)
      m_free[i]= MAX_SLOTS - 1 - i;
  }

  /** Let a thread in if fewer than concurrency() hold a ticket and the
  commit rate allows one more: the gate hands out at most `rate` admissions
  a second (a token bucket WINDOW deep), which also paces connections too
  few for a concurrency limit to bind (one connection faster than purge).
  @param now  a monotonic clock, in nanoseconds (nonzero)
  @param t    the thread's ticket, written if it is let in
  @return whether it was let in (always without a limit) */
  bool enter(uint64_t now, ticket &t) noexcept
  {
    if (!m_limit)
      return true;
    if (running() >= m_limit)
    {
      expire(now);
      if (running() >= m_limit)
        return !(m_full= true);
    }
    if (!m_tracking)
    {
      refill(now);
      if (m_tokens < 1)
        return !(m_rate_bound= true);
      m_tokens-= 1;
    }
    t.since= now;
    m_most= std::max(m_most, running() + 1);
    if (!m_n_free)
    {
      t.slot= MAX_SLOTS;  /* counted, not tracked */
      m_untracked++;
      return true;
    }
    t.slot= m_free[--m_n_free];
    m_since[t.slot]= now;
    return true;
  }

  /** @return nanoseconds until the commit rate allows the next admission
  (0: now, or no limit)
  @param now  a monotonic clock, in nanoseconds */
  uint64_t token_wait(uint64_t now) noexcept
  {
    if (!m_limit || !m_rate)
      return 0;
    refill(now);
    return m_tokens >= 1 ? 0 : uint64_t((1 - m_tokens) * 1e9 / m_rate) + 1;
  }

  /** Give a ticket back: the thread committed.
  @param now  a monotonic clock, in nanoseconds
  @param t    the ticket (none: no-op); cleared
  @return whether a slot was freed (the ticket had not expired) */
  bool leave(uint64_t now, ticket &t) noexcept
  {
    const uint64_t since= t.since;
    t.since= 0;
    if (!since)
      return false;
    if (t.slot >= MAX_SLOTS)
    {
      if (!m_untracked)
        return false;
      m_untracked--;
    }
    else if (m_since[t.slot] != since)
      return false;
    else
      free_slot(t.slot);
    m_returned++;
    return true;
  }

  /** Set the commit rate limit, and the concurrency from the time a ticket
  was held in the measurement window that ends.
  @param now     a monotonic clock, in nanoseconds
  @param rate    the commit rate limit, transactions per second (0 = none)
  @param want    connections that want to run read-write transactions now:
                 running one, or waiting at the gate (the window starts
                 from it, concurrency_window::start())
  @param outside read-write transactions running now without a ticket:
                 while they are as many as the window, the commit rate of
                 those let in is theirs to set, not the window's
  @return concurrency() */
  unsigned resize(uint64_t now, uint64_t rate, uint64_t want= 0,
                  uint64_t outside= 0) noexcept
  {
    m_rate_bound= false;
    /* against the window that applied until now: at either end of a
    measurement, and in it */
    m_crowded= m_crowded || (m_limit && outside >= m_limit);
    if (!rate)
    {
      /* tickets that are out stay valid and are given back as usual; the
      episode's last measurement counts (an episode may be shorter than
      an interval of the window) */
      if (m_rate && !m_tracking && now > m_window_start)
        measured(now);
      m_rate= 0;
      m_tracking= false;
      return m_limit= 0;
    }
    if (!m_rate || m_tracking)
    {
      /* a limit comes into force, with a full bucket; what was given back
      while none was is no measure of the window */
      m_tracking= false;
      m_tokens_at= now;
      m_tokens= depth(double(rate));
      measure_from(now);
    }
    else if (now - m_window_start >= WINDOW)
    {
      measured(now);
      measure_from(now);
    }
    m_window.start(want);
    refill(now);
    m_rate= double(rate);
    m_tokens= std::min(m_tokens, depth(m_rate));
    const double w= std::ceil(m_window.size());
    m_limit= w >= 4e9 ? ~0U : std::max(1U, unsigned(w));
    /* against the window that applies from now on */
    m_crowded= m_crowded || outside >= m_limit;
    return m_limit;
  }

  /** Hand out tickets without a limit (tests: an unlimited gate tracks its
  tickets as a limited one does). */
  void track() noexcept
  {
    m_tracking= true;
    m_limit= ~0U;
  }

  /** @return the concurrency limit (0 = none) */
  unsigned concurrency() const noexcept { return m_limit; }
  /** @return whether the commit rate kept a thread out since resize() */
  bool rate_bound() const noexcept { return m_rate_bound; }
  /** @return tickets out (some may have expired unnoticed) */
  unsigned running() const noexcept
  { return MAX_SLOTS - m_n_free + m_untracked; }

private:
  /** @return the token bucket's depth: a WINDOW of the rate, at least
  one admission */
  static double depth(double rate) noexcept
  { return std::max(1.0, rate * double(WINDOW) * 1e-9); }

  /** Start a measurement of the window's commits. */
  void measure_from(uint64_t now) noexcept
  {
    m_window_start= now;
    m_returned= m_most= 0;
    m_full= m_crowded= false;
  }

  /** Feed the measurement that ends now to the window. */
  void measured(uint64_t now) noexcept
  {
    m_window.update(double(now - m_window_start) * 1e-9, double(m_returned),
                    m_full, double(m_most), !m_crowded);
  }

  /** Add the tokens that the rate accrued since the last refill. */
  void refill(uint64_t now) noexcept
  {
    if (now > m_tokens_at)
    {
      m_tokens= std::min(depth(m_rate), m_tokens +
                         double(now - m_tokens_at) * 1e-9 * m_rate);
      m_tokens_at= now;
    }
  }

  void free_slot(unsigned slot) noexcept
  {
    m_since[slot]= 0;
    m_free[m_n_free++]= slot;
  }

  /** Free the slots of expired tickets, at most once per millisecond */
  void expire(uint64_t now) noexcept
  {
    if (now < LEASE || now - m_last_expiry < 1000000)
      return;
    m_last_expiry= now;
    for (unsigned i= 0; i < MAX_SLOTS; i++)
      if (m_since[i] && m_since[i] < now - LEASE)
        free_slot(i);
  }

  uint64_t m_since[MAX_SLOTS]= {};
  unsigned m_free[MAX_SLOTS];
  unsigned m_n_free= MAX_SLOTS;
  /** tickets out beyond MAX_SLOTS */
  unsigned m_untracked= 0;
  unsigned m_limit= 0;
  uint64_t m_last_expiry= 0;
  /** start of the measurement of the window's commits (0: none) */
  uint64_t m_window_start= 0;
  /** tickets given back since then, and the most out at once */
  uint64_t m_returned= 0;
  unsigned m_most= 0;
  /** the concurrency window */
  concurrency_window m_window;
  /** a connection found the window full since the measurement started */
  bool m_full= false;
  /** since the measurement started, resize() saw as many read-write
  transactions without a ticket as the window */
  bool m_crowded= false;
  /** track(): tickets without a limit */
  bool m_tracking= false;
  /** the commit rate kept a thread out since resize() */
  bool m_rate_bound= false;
  /** the commit rate limit (0: none), the admissions it allows now, and
  when that was computed */
  double m_rate= 0, m_tokens= 0;
  uint64_t m_tokens_at= 0;
};

} // namespace purge_throttle

#endif
