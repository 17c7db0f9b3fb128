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
@file include/trx0adaptive.h
The adaptive purge throttle (innodb_purge_throttle=adaptive): the control
law that holds the history at innodb_max_purge_lag (adaptive_controller,
open_bound) and the admission that enforces its output (rate_clock,
admission_gate).

Nothing here depends on InnoDB's state, so that it can be unit tested;
srv0purgelab_adaptive.cc applies it to the server.
*******************************************************/

#ifndef trx0adaptive_h
#define trx0adaptive_h

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "trx0throttle.h"

namespace purge_throttle
{

/** Bytes in a cache line: the gate keeps the atomics that connections
write on every admission apart from those that they only read */
#ifdef CPU_LEVEL1_DCACHE_LINESIZE
constexpr size_t CACHE_LINE= CPU_LEVEL1_DCACHE_LINESIZE;
#else
constexpr size_t CACHE_LINE= 64;
#endif

/** The least doubles that do not convert to uint64_t and int64_t (2^64 and
2^63, which the maxima round to): results at or past them saturate */
constexpr double U64_END= double(std::numeric_limits<uint64_t>::max()),
  I64_END= double(std::numeric_limits<int64_t>::max());

/** The bound on the read-write transactions that run at once while the
adaptive throttle is in force.  Open transactions keep undo log truncation
from freeing the rollback segments they reference, and past a point more
of them on the same rows slow purge's parse: W drains the history that
the commit rate cannot.  It integrates a relative error g of that history
in the log domain:

  d ln W / dt = clamp(g, -1, 1) / TAU,   1 <= W <= want

It comes into force at W = want (no step) once g < 0, and lapses once W
is back at want with g >= 0: it binds only while the error lasts, and it
never steps up, which would let in at once the crowd that waited.  There
`want` is the most connections that wanted in since W came into force,
and at first the most of the last TAU (decaying by e per TAU): fewer
wanting in for a moment (they wait for a CPU in the client) leaves W
slack, not smaller, and is no room to lapse on or to start from.  While
it is in force the controller asks for a drain of rollback segments too
(drain_width()).
No latch: the purge coordinator alone calls it. */
class open_bound
{
public:
  /** Integrate one interval.
  @param dt    seconds since the last update
  @param tau   TAU, seconds
  @param g     the relative error: > 0 room, < 0 over
  @param want  connections that want to run read-write transactions:
               those running one, and those waiting at the gate */
  void update(double dt, double tau, double g, double want) noexcept
  {
    recent(dt, tau, want);
    if (m_w <= 0)
    {
      if (!(g < 0))
        return;
      forget();
    }
    /* no more than the ceiling wanted in for TAU: the crowd that queued
    has left, or W lets in all that reach the gate (a shorter dip is
    clients waiting for a CPU), and W answers to those who want in now */
    m_fewer= m_queued && want <= m_most / 2 ? m_fewer + dt : 0;
    if (m_fewer >= tau)
      forget();
    m_most= std::max(m_most, std::max(1.0, want));
    if (m_w <= 0)
      m_w= m_most= std::max(m_most, m_recent);
    g= std::max(-1.0, std::min(1.0, g));
    m_w= std::max(1.0, std::min(m_queued ? m_most / 2 : m_most,
                                m_w * std::exp(g * dt / tau)));
    if (m_w >= m_most && g >= 0)
      m_w= 0;
  }

  /** More than half of those let in waited for a lock: at most half of
  them ran.  While W is in force it grows back to at most half the most
  that wanted in since it came into force, not into the queues again
  (they form at once, with no warning in the lock waits before), until
  no more than that have wanted in for TAU or nothing holds the history
  (unqueue()).  Half the crowd that wants in, not of those let in at that
  moment: a thread pool lets in a few at a time. */
  void queued() noexcept
  {
    if (m_w > 0)
      m_queued= true;
  }

  /** More of those let in wait for a lock than run: at most half of them
  run, and W is at most half of them, coming into force for it (at want,
  as in update()) if it was out, and from then on grows back to at most
  half the most that wanted in (queued()).  Repeated while the queue
  lasts, the cut goes on only as those let in leave.
  @param open  those let in and not ended
  @param want  connections that want to run read-write transactions */
  void queue(double open, double want) noexcept
  {
    if (m_w <= 0)
    {
      forget();
      m_w= m_most= std::max(1.0, std::max(want, m_recent));
    }
    queued();
    cap(open / 2);
  }

  /** Nothing holds the history: W grows back to want (and lapses there),
  not to half the crowd that queued (queued()). */
  void unqueue() noexcept { m_queued= false; }

  /** Bound W by n at most, if it is in force.
  @param n  connections, at least 1 */
  void cap(double n) noexcept
  {
    if (m_w > 0)
      m_w= std::max(1.0, std::min(m_w, n));
  }

  /** The law went out of force. */
  void reset() noexcept { m_w= 0; m_recent= 0; }

  /** @return whether the bound is in force (it may be slack at want) */
  bool in_force() const noexcept { return m_w > 0; }

  /** @return the bound, connections (0: none) */
  unsigned size() const noexcept
  {
    return m_w <= 0 ? 0
      : m_w >= double(std::numeric_limits<unsigned>::max()) ? ~0U
      : unsigned(std::ceil(m_w));
  }

private:
  /** Follow the most that wanted in lately, in or out of force.
  @param dt    seconds since the last update
  @param tau   TAU, seconds
  @param want  connections that want to run read-write transactions */
  void recent(double dt, double tau, double want) noexcept
  { m_recent= std::max(want, m_recent * std::exp(-dt / tau)); }

  /** Forget the last episode's crowd: W comes into force. */
  void forget() noexcept
  {
    m_most= 0;
    m_queued= false;
    m_fewer= 0;
  }

  /** W, connections (0: no bound) */
  double m_w= 0;
  /** the most connections that wanted in since W came into force */
  double m_most= 0;
  /** whether more than half of those let in waited for a lock since W
  came into force: W grows back to at most m_most / 2 */
  bool m_queued= false;
  /** seconds for which no more than m_most / 2 wanted in */
  double m_fewer= 0;
  /** the most connections that wanted in lately: the largest want, less
  a factor e per TAU since (W comes into force at it) */
  double m_recent= 0;
};

/** The gate counts the transactions that it let in with a ticket; those let
in without one (by the commit rate alone, or before any limit was in
force) run beside them for as long as they last, which no ticket bounds.
So that W bounds every read-write transaction open, they count against it.
@param w        the bound W (0: none)
@param open     read-write transactions open now
@param tickets  tickets out
@return the bound on tickets to publish (0: none), at least 1 */
constexpr unsigned ticket_bound(unsigned w, uint64_t open, uint64_t tickets)
  noexcept
{
  return !w ? 0
    : open <= tickets ? w
    : w > open - tickets ? unsigned(w - (open - tickets)) : 1;
}

/** How far the truncation-pending history p went on rising after an
actuator on it came in: that much joins p before the actuator frees any of
it, so the actuator acts that far ahead of p.  It is the rise itself, not
a rate times its duration: the actuator changes purge's rate, and a lead
scaled by the rate after it would outgrow any rise seen. */
class rise_meter
{
public:
  /** Note an evaluation.
  @param on   whether the actuator is in force
  @param p    the truncation-pending history */
  void update(bool on, uint64_t p) noexcept
  {
    if (m_on)
    {
      if (p > m_peak)
        m_peak= p;
      else if (m_rising && p < m_from)
      {
        /* it has freed more than p gained since it came in */
        m_rise= m_peak - m_from;
        m_rising= false;
      }
    }
    if (!on)
      m_on= false;
    else if (!m_on)
    {
      m_on= m_rising= true;
      m_from= m_peak= p;
    }
  }
  /** Forget the actuator's present episode (it is out of force). */
  void reset() noexcept { m_on= false; }
  /** @return how far ahead of p the actuator acts: p's last rise (0 until
  one has been measured), at most most
  @param most  the largest lead that the caller allows */
  double ahead(double most) const noexcept
  { return std::min(double(m_rise), most); }
private:
  /** whether the actuator is in force */
  bool m_on= false;
  /** whether p has not yet fallen below m_from since the actuator came in */
  bool m_rising= false;
  /** p when the actuator came in, and the most since */
  uint64_t m_from= 0, m_peak= 0;
  /** how far p rose after the actuator last came in, measured once it had
  freed more than p gained (0: none yet) */
  uint64_t m_rise= 0;
};

/** The adaptive throttle (innodb_purge_throttle=adaptive): holds
the history length at a target T (innodb_max_purge_lag) with two
actuators, each answering to the part of the history that it drains.
The purge coordinator evaluates it after each batch (update());
admission_gate enforces its output.

  u = unparsed - view-blocked, p = parsed, waiting for truncation
  x = u + p, e = max(T - x, -u - open),  r = purge's parse rate over TAU_RATE
  C = max(MIN_SHARE r, r + e / TAU + I),  dI/dt = e / (4 TAU^2), |I| <= r;
      C that reached its floor with e < 0 stays there until e >= 0
  S = T - min(u, (1 - PENDING_SHARE) T)    p's share of the target
  R_W, R_D: how far p rose after W, the drain last came in
  L: open transactions waiting for a lock
  A_W = min(max(R_W, L), (1 - ENGAGE) S), A_D = min(R_D, (1 - ENGAGE) S)
  g = (S - p - A_W) / S, or, where p < ENGAGE S, 1 (0 while TAU du/dt
      >= T - x); but from when, x over T, u did not fall over TAU_RATE with
      C at its floor (C lost) until W lapses: min((S - p - A_W) / S,
      -1 while so, (T - x) / T while C is out of force and
      TAU du/dt < T - x, else 0)
  d ln W / dt = clamp(g, -1, 1) / TAU, 1 <= W <= want      (open_bound)
  as C loses: W <= open C / (r + du/dt)        (Little's law: what commits)
  while more of those let in wait for a lock than run, and more than
      commit in POLL_MIN (L > (r + du/dt) POLL_MIN, r + du/dt measured
      for TAU_RATE), and x + min(L, (1 - ENGAGE) S) > T: W <= open / 2
      (W comes in for it); from then on, while p >= ENGAGE S or C in
      force, W <= Q / 2, Q the most that wanted in since W came in
  C in force while x > ENGAGE T and purge progresses (else none, I = 0);
  W from g < 0 while purge progresses until it is back at want
  the drain of rollback segments while p + max(open, A_D) > S or W is
  in force

C, admissions a second, drains what purge parses: at the target it
admits what purge parses, and the integral removes what r misses.  At
its floor over the target it stays until the history is back at the
target: r, measured while C holds the writers back, is what purge
parses with the CPUs to itself, not once they commit again.  W, the
transactions let in at once, drains what C cannot: what waits for
truncation, which frees only rollback segments that no open transaction
references, and what transactions let in before keep committing over
the target once C is at its floor (a crowd of them on the same rows also
slows purge's parse).  It is slack unless p exceeds what the unparsed
part leaves of T, or, x over T, u does not fall with C at its floor:
then it drops at once to the transactions open that would commit at C,
shrinks at its fastest while that lasts, and after grows back only while
C is out of force and u, at its trend, would not reach T within TAU, no
faster than x leaves room.  W from p alone grows back at its fastest
once truncation has freed p under ENGAGE S, also only while u, at its
trend, would not reach T within TAU; neither lapses before it is back at
want.  Transactions that wait for a lock join p before
truncation frees any of it, and while they are most of those let in,
more than commit within a purge poll (once that is measured), and the
history with them is over the target, W is at most half of those let in
(it comes in for that if out of force), and grows back to at most half the
most that wanted in since it came in while p is not freed or C is in
force.  It bounds every
read-write transaction open, with a ticket or without (ticket_bound()).
What only the end of
the oldest read view frees is in neither part: what it keeps purge from
parsing, and the history of the rollback segments written since it was
opened, which truncation may not free while it holds.  No throttle
removes that: output() leaves it out (MDEV-29401). */
class adaptive_controller
{
public:
  /** Share of the target over which the commit rate limit is in force
  (and the coordinator looks again rather than go idle).
  Under it the limit would exceed r + T / (2 TAU): none that a load whose
  history stays under T needs, and not worth a latch per transaction. */
  static constexpr double ENGAGE= 0.5;
  /** The least share of the target that the truncation-pending history
  may take before the bound on open transactions acts: the two parts
  split the target evenly when both are behind */
  static constexpr double PENDING_SHARE= 0.5;
  /** Time in which the proportional term closes the gap to the target,
  and in which W moves by a factor e at most, in microseconds: several
  purge batches and rate windows, short against the seconds that a
  history over the target costs reads */
  static constexpr uint64_t TAU= 2000000;
  /** Integral time, microseconds: 4 TAU makes the loop around the
  integrating plant dx/dt = C - r critically damped (damping ratio
  sqrt(TAU_I / TAU) / 2 = 1) */
  static constexpr uint64_t TAU_I= 4 * TAU;
  /** Time constant of the purge rate average, in microseconds: a few
  batches; a drop d of purge's capacity overshoots the history by about
  d * TAU_RATE before the feed-forward follows */
  static constexpr uint64_t TAU_RATE= 500000;
  /** The least commit rate admitted, as a share of purge's rate: the
  throttle slows DML down, it never stops it */
  static constexpr double MIN_SHARE= 0.05;
  /** Shortest interval over which purge's rate is measured, in
  microseconds: five POLL_MIN, so that it holds several batches */
  static constexpr uint64_t WINDOW= 5 * POLL_MIN;
  /** Age after which a published limit lapses unless the purge batch that
  followed it still runs, in microseconds: ten POLL_MAX, since the
  coordinator republishes at least every POLL_MAX while the law is in
  force.  Also a waiter's longest wait at a gate that lets nobody in. */
  static constexpr uint64_t STALE= 10 * POLL_MAX;
  /** Rollback segments that undo log truncation may withhold at once
  while the law drains (drain_width()): half of the 128, so that new
  transactions always find segments to take */
  static constexpr unsigned DRAIN_WIDTH= 64;

  /** @return whether the law is in force for a history (or the coordinator
  should look again rather than go idle); no overflow for any target
  @param x       history length (- blocked)
  @param target  innodb_max_purge_lag (0 = none) */
  static constexpr bool engaged(uint64_t x, uint64_t target) noexcept
  { return target && double(x) > ENGAGE * double(target); }

  /** @return what commits at purge's rate r within POLL_MAX (the longest
  that a polling coordinator waits to look again): how far under the
  target a commit wakes an idle purge coordinator (wake_level())
  @param rate  r, transactions per second */
  static uint64_t wake_margin(double rate) noexcept
  {
    const double m= rate * double(POLL_MAX) * 1e-6;
    return m < U64_END ? uint64_t(m) : ~uint64_t{0};
  }

  /** @return the history over which a commit wakes an idle purge
  coordinator: the target less wake_margin(), and no less than ENGAGE T.
  Under it purge works in bursts, as it does without a throttle; a lower
  level would hold the history under T by running purge for nothing.
  @param target  T (0 = none)
  @param margin  wake_margin() */
  static constexpr uint64_t wake_level(uint64_t target, uint64_t margin)
    noexcept
  {
    return target - (double(margin) < (1 - ENGAGE) * double(target)
                     ? margin : uint64_t((1 - ENGAGE) * double(target)));
  }

  /** The measured output: what update() acts on.
  @param history  history length
  @param blocked  of it, what only the end of the oldest read view frees
                  (no throttle removes it)
  @return history - blocked, at least 0 */
  static constexpr uint64_t output(uint64_t history, uint64_t blocked)
    noexcept
  { return history > blocked ? history - blocked : 0; }

  /** @return whether purge's oldest read view keeps purge from parsing
  what committed after it (output()'s `blocked`), rather than slowing it:
  a view that moved within TAU_RATE is a dip of purge's rate, which r
  follows
  @param unmoved  microseconds since the view's limit last moved */
  static constexpr bool view_holds(uint64_t unmoved) noexcept
  { return unmoved >= TAU_RATE; }

  /** @return the share S of the target that the truncation-pending
  history may take before the bound on open transactions acts: what the
  unparsed part leaves of T, and at least PENDING_SHARE of it
  @param target    T
  @param unparsed  u */
  static constexpr double pending_share(uint64_t target, uint64_t unparsed)
    noexcept
  {
    return double(target) -
      (double(unparsed) < (1 - PENDING_SHARE) * double(target)
       ? double(unparsed) : (1 - PENDING_SHARE) * double(target));
  }

  /** Evaluate the law after a purge batch.
  @param now       a monotonic clock, in microseconds
  @param x         output(): history - blocked
  @param pending   of x, what purge parsed and truncation did not free
  @param purged    a counter of the committed transactions that purge has
                   parsed (it advances with every batch, unlike the history,
                   which falls in steps as undo logs are truncated)
  @param target    innodb_max_purge_lag (0 = no throttling)
  @param progress  purge can progress (no read view blocks all of it)
  @param want      connections that want to run read-write transactions
                   (running one, or waiting at the gate)
  @param rate_bound  the commit rate limit held a connection back since
                   the last update (anti-windup: the integral grows only
                   while a higher limit would admit more)
  @param open      read-write transactions let in and not ended: those
                   open now, or the tickets out if more (at most want)
  @param lock_waits  transactions waiting for a lock now
  @return the commit rate to admit, read-write transactions per second;
  0 = no limit (concurrency() may still bound the transactions let in) */
  uint64_t update(uint64_t now, uint64_t x, uint64_t pending,
                  uint64_t purged, uint64_t target, bool progress,
                  uint64_t want, bool rate_bound,
                  uint64_t open= ~uint64_t{0},
                  uint64_t lock_waits= 0) noexcept
  {
    m_target= target;
    m_x= x;
    m_engaged= progress && engaged(x, target);
    /* of x, p waits for truncation, u for purge to parse it */
    const uint64_t p= std::min(pending, x), u= x - p;
    /* read-write transactions let in and not ended */
    const uint64_t n_open= std::min(open, want);
    if (!progress || !target)
    {
      /* nothing is held while purge cannot progress (MDEV-29401) */
      m_bound.reset();
      m_bound_at= 0;
      m_over= false;
      m_lost= false;
      m_drain= false;
      m_bound_rise.reset();
      m_drain_rise.reset();
    }
    else
    {
      /* W comes into force once p exceeds S, or once x is over T and u
      does not fall although C is at its floor: C can do no more, and what
      commits was let in before; only fewer open transactions drain it.
      From then until it lapses, W shrinks while that lasts and grows only
      while C is out of force (x under ENGAGE T) and u, at its trend, would
      not reach T within TAU, no faster than x leaves room: a bound that
      grows while C holds the history back, or while a crowd comes in,
      lets in what C keeps out, and purge slows with it.  (u, not x: x
      also waits for truncation steps.) */
      const double share= pending_share(target, u),
        room= (double(target) - double(x)) / double(target);
      const bool trend= m_trend_since && now - m_trend_since >= TAU_RATE;
      /* what commits: what purge parses plus what u grows by */
      const double commits= m_rate + m_trend;
      const bool lost= room < 0 && trend && m_trend >= 0 && u && m_floor &&
        commits > 0;
      m_over= m_over || lost;
      /* W acts ahead of p by how far p last rose after W came in, not by
      the open transactions: where truncation frees p on a schedule of its
      own, p peaks as W comes in and a bound that acted ahead would shrink
      for nothing.  Each lead is at most (1 - ENGAGE) S: no actuator on p
      comes in where W from p would lapse. */
      const double most_ahead= (1 - ENGAGE) * share;
      /* A transaction that waits for a lock keeps its rollback segment
      from truncation and commits nothing until the holder does: those
      waiting join p before truncation can free any of it, and W acts
      that far ahead too. */
      const uint64_t waits= std::min(lock_waits, n_open);
      const double waits_ahead= std::min(double(waits), most_ahead);
      /* u, at its trend, would not reach T within TAU */
      const bool keeps_up=
        m_trend * double(TAU) * 1e-6 < double(target) - double(x);
      const double g= std::min((share - double(p) -
                                std::max(m_bound_rise.ahead(most_ahead),
                                         waits_ahead)) / share,
                               !m_over ? 1.0 : lost ? -1.0
                               : !m_engaged && trend && keeps_up ? room
                               : 0.0);
      /* Once truncation has freed p to under ENGAGE of its share, W from
      p grows back at its fastest, by e per TAU, and lapses back at want.
      Lapsing at once, as C does under ENGAGE T, lets in at once the crowd
      that it kept out: on hot rows that crowd slows purge and fills p
      again before W, back at want, binds.  As after C lost, it grows only
      while u, at its trend, would not reach T within TAU: a bound that
      grows while purge's parse falls behind lets in more of what slows
      it. */
      const bool freed= !m_over && double(p) < ENGAGE * share;
      /* an actuator holds the history: p is not freed, or C is in force */
      const bool held= !freed || m_engaged;
      /* With none, W grows back to want, not to half the crowd that
      queued, and lapses there.  The ceiling keeps W out of the queues
      only while an actuator needs it; kept, it held 4,094 connections at
      a bound of 2 over an empty history. */
      if (!held)
        m_bound.unqueue();
      m_bound.update(m_bound_at && now > m_bound_at
                     ? double(now - m_bound_at) * 1e-6 : 0,
                     double(TAU) * 1e-6,
                     freed ? (trend && !keeps_up ? 0.0 : 1.0) : g,
                     double(want));
      /* Once C loses, W drops at once to the transactions open that
      would commit at C (Little's law at their present holding time): the
      crowd that made it lose has to leave before another comes in. */
      if (lost && !m_lost)
        m_bound.cap(double(n_open) * double(m_limit) / commits);
      m_lost= lost;
      /* More of those let in wait for a lock than run, and the history
      with them is over the target (they join it before truncation frees
      any; C is in force): one more let in would only join a lock's
      queue, holding an open transaction and a share of the CPUs that
      purge's parse needs.  W is at most half of those let in (at most
      half of them run), coming into force for it, and from then on,
      while an actuator holds the history, grows back to at most half the
      most that wanted in since it came in.  Half, not those that run:
      at a queue's peak those are the few rows' holders, and a bound as
      low commits no faster than one log flush lets a few through;
      repeated while the queue lasts, the cut goes on as those let in
      leave, and stops once the queue is no crowd.  Not while the history
      with the waiting is within the target: there W from p answers to p
      by its own error, and a cut drains what the target does not ask to
      drain; a
      load whose own lock waits are most of its connections would be cut
      at each peak of p.  Nor for a queue that what commits clears within
      a purge poll: W, which answers once a poll, keeps nobody out of it,
      and a cut costs the rows their next holder: a thread pool lets in a
      few at a time, often all of them waiting, and a cut below them
      makes the pool hand its whole crowd to the gate.  Nor before what
      commits is measured (TAU_RATE after purge resumes, as for lost):
      until then any queue would read as a crowd. */
      if (double(x) + waits_ahead > double(target) &&
          trend && waits > n_open - waits &&
          double(waits) * 1e6 > std::max(commits, 0.0) * double(POLL_MIN))
        m_bound.queue(double(n_open), double(want));
      /* the drain frees what waits for truncation: it answers to p and
      what joins p before the drain frees any of it over its share, and
      while W is in force.  What joins p: the transactions
      open now, which truncation cannot free before they end, or, if
      more, how far p rose after the last drain came in.  Under S, p and
      that are within the target and freeing p sooner buys nothing. */
      m_drain= double(p) +
        std::max(double(n_open), m_drain_rise.ahead(most_ahead)) > share;
      m_over= m_over && m_bound.in_force();
      m_bound_rise.update(m_bound.in_force(), p);
      m_drain_rise.update(drain_width() != 0, p);
      m_bound_at= now;
    }
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
        m_trend+= a * ((double(u) - m_u_window) / dt - m_trend);
        if (m_engaged)
          m_dt= dt;
      }
      else
      {
        m_trend= 0;
        m_trend_since= now;
      }
      m_now= now;
      m_purged= purged;
      m_u_window= double(u);
    }
    else if (m_engaged && m_limit)
      return m_limit;   /* within a window; m_floor stands */
    /* C was at its floor at the last evaluation */
    const bool floored= m_floor;
    m_floor= false;
    if (!m_engaged)
    {
      /* no wind-up across episodes */
      m_integral= 0;
      m_dt= 0;
      return m_limit= 0;
    }
    const double dt= m_dt;
    m_dt= 0;
    if (m_rate <= 0)
    {
      m_integral= 0;
      return m_limit= 0;
    }
    /* C drains what purge has not parsed, and the open transactions,
    fewer as fewer are admitted: of an excess over T it answers for u and
    those at most.  The rest waits for truncation, which no admission rate
    frees sooner (W and the drain do); cutting for it holds back writers
    while purge keeps up. */
    const double e= std::max(double(target) - double(x),
                             -double(u) - double(n_open));
    const double tau= double(TAU) * 1e-6, tau_i= double(TAU_I) * 1e-6;
    const double floor= MIN_SHARE * m_rate;
    /* C that reached its floor with e < 0 stays there until e >= 0 (x
    back at T, or nothing left unparsed or open): at the floor the
    writers are held back, and r, measured while they are, is what purge
    parses with the CPUs to itself, not what it parses once they commit
    again. */
    const bool hold= e < 0 && floored;
    const double wanted= m_rate + e / tau + m_integral;
    /* anti-windup: integrate only where the actuator can follow */
    if (!(e < 0 && (wanted <= floor || hold)) && !(e > 0 && !rate_bound))
      m_integral= std::max(-m_rate, std::min(m_rate, m_integral +
                                             e * dt / (tau * tau_i)));
    const double c= hold ? floor
      : std::max(floor, m_rate + e / tau + m_integral);
    m_floor= c <= floor;
    return m_limit= c >= U64_END ? ~uint64_t{0} >> 1
      : std::max(uint64_t{1}, uint64_t(c));
  }

  /** How many rollback segments undo log truncation may withhold at once:
  like the bound, it drains the truncation-pending history, from p and
  what joins it before the drain frees any (the transactions open, or
  how far p last rose after the drain came in) over p's share, and while
  the bound is in force.
  @return the least width to apply (0 or DRAIN_WIDTH; a configured width
  may be larger) */
  unsigned drain_width() const noexcept
  { return m_bound.in_force() || m_drain ? DRAIN_WIDTH : 0; }

  /** @return whether the rate or the bound is in force since the last
  update() */
  bool in_force() const noexcept { return m_engaged || m_bound.in_force(); }
  /** @return the commit rate limit, transactions per second (0 = none) */
  uint64_t limit() const noexcept { return m_limit; }
  /** @return the bound on open read-write transactions (0 = none) */
  unsigned concurrency() const noexcept
  { return m_bound.size(); }
  /** @return purge's measured rate, transactions per second */
  double purge_rate() const noexcept { return m_rate; }
  /** @return the integral term, transactions per second */
  double integral() const noexcept { return m_integral; }
  /** @return x - T at the last update(), saturated to int64_t */
  int64_t error() const noexcept
  {
    const double d= double(m_x) - double(m_target);
    return d >= I64_END ? INT64_MAX : d <= -I64_END ? INT64_MIN : int64_t(d);
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
  /** the clock at the start of the current rate window (0: none) */
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
  /** W answers to x as well as to p: with x over T, u did not fall while
  C was at its floor, and W has not lapsed since */
  bool m_over= false;
  /** C was at its floor at the last evaluation of the rate */
  bool m_floor= false;
  /** C had lost at the last update() */
  bool m_lost= false;
  /** p and what joins it before the drain frees any were over p's share
  at the last update() */
  bool m_drain= false;
  /** how far p rose after the bound, and after the drain, came in */
  rise_meter m_bound_rise, m_drain_rise;
  /** u = x - p at the start of the current rate window */
  double m_u_window= 0;
  /** du/dt, averaged over TAU_RATE like m_rate, per second */
  double m_trend= 0;
  /** when the measurement of m_trend began */
  uint64_t m_trend_since= 0;
  /** W, and the clock at its last update (0: none) */
  open_bound m_bound;
  uint64_t m_bound_at= 0;
};

/** The commit rate limit as a generic cell rate algorithm (GCRA): one
theoretical arrival time `tat`; an admission at `now` is allowed iff
max(tat, now) + 1 / C <= now + TOLERANCE (or it is the first of a burst),
and moves tat to max(tat, now) + 1 / C.
So at most C admissions a second pass, with bursts of C * TOLERANCE (a
token bucket of that depth), and an admission is one compare-and-swap:
no latch, nothing to expire. */
class rate_clock
{
public:
  /** The burst allowed, nanoseconds of the rate (adaptive_controller::
  WINDOW): the bucket's depth */
  static constexpr uint64_t TOLERANCE= adaptive_controller::WINDOW * 1000;

  /** Set the rate.
  @param now   a monotonic clock, nanoseconds
  @param rate  admissions a second (0: none, every admission passes) */
  void set(uint64_t now, uint64_t rate) noexcept
  {
    const uint64_t interval= !rate ? 0 : rate >= 1000000000 ? 1
      : 1000000000 / rate;
    if (interval && !m_interval.load(std::memory_order_relaxed))
      /* a limit comes into force with a full burst */
      m_tat.store(now, std::memory_order_relaxed);
    m_interval.store(interval, std::memory_order_relaxed);
  }

  /** Try to admit one.
  @param now  a monotonic clock, nanoseconds
  @return 0 if admitted (or no rate), else nanoseconds until it would be */
  uint64_t admit(uint64_t now) noexcept
  {
    const uint64_t interval= m_interval.load(std::memory_order_relaxed);
    if (!interval)
      return 0;
    const uint64_t slack= burst(interval);
    uint64_t tat= m_tat.load(std::memory_order_relaxed);
    for (;;)
    {
      const uint64_t t= std::max(tat, now);
      if (t > now + slack)
        return t - now - slack;
      if (m_tat.compare_exchange_weak(tat, t + interval,
                                      std::memory_order_relaxed))
        return 0;
    }
  }

  /** Give the last admission's token back (it was not used).  Tokens are
  alike, so that the one given back need not be the caller's. */
  void refund() noexcept
  {
    const uint64_t interval= m_interval.load(std::memory_order_relaxed);
    uint64_t tat= m_tat.load(std::memory_order_relaxed);
    while (interval &&
           !m_tat.compare_exchange_weak(tat, tat > interval
                                        ? tat - interval : 0,
                                        std::memory_order_relaxed));
  }

  /** @return nanoseconds until an admission would pass (0: now, or no
  rate)
  @param now  a monotonic clock, nanoseconds */
  uint64_t wait(uint64_t now) const noexcept
  {
    const uint64_t interval= m_interval.load(std::memory_order_relaxed);
    if (!interval)
      return 0;
    const uint64_t t= m_tat.load(std::memory_order_relaxed), slack=
      burst(interval);
    return t > now + slack ? t - now - slack : 0;
  }

private:
  /** @return how far tat may run ahead of the clock: TOLERANCE less one
  interval, so that a burst is TOLERANCE of the rate, at least one */
  static uint64_t burst(uint64_t interval) noexcept
  { return interval < TOLERANCE ? TOLERANCE - interval : 0; }

  /** the theoretical arrival time of the next admission, nanoseconds */
  std::atomic<uint64_t> m_tat{0};
  /** nanoseconds per admission (0: no rate) */
  std::atomic<uint64_t> m_interval{0};
};

/** Admission control for the adaptive throttle's output, in two stages: at
most `rate` admissions a second (rate_clock), and at most `bound` tickets
out, a ticket being one read-write transaction let in under the bound.
No latch: enter() is a load and a compare-and-swap per stage, leave() one
atomic decrement.
Invariants: running() is exactly the tickets out (each enter() that set a
ticket added one, each leave() of a held ticket took one: nothing expires,
so every holder must give its ticket back); an enter() sets a ticket only
while running() is under the bound, so that running() exceeds the bound
only by tickets let in under a wider one; a connection that waits for a
ticket is counted by gate::enqueue() before it tries, and gate::leave()
decrements before it reads that count, so that either the waiter
sees the room or the leaver sees the waiter (both sequentially consistent). */
class admission_gate
{
public:
  /** The burst allowed, in nanoseconds of the rate (rate_clock) */
  static constexpr uint64_t WINDOW= rate_clock::TOLERANCE;
  /** Longest wait at a gate that lets nobody in, in nanoseconds
  (adaptive_controller::STALE): a waiter waits as long as the queue
  moves */
  static constexpr uint64_t MAX_WAIT= adaptive_controller::STALE * 1000;

  /** Whether a connection holds a ticket (zero-initialised: none) */
  struct ticket
  {
    bool held= false;
  };

  /** Let one in if the commit rate allows one more and, under a bound,
  fewer than the bound hold a ticket.
  @param now  a monotonic clock, in nanoseconds (nonzero)
  @param t    written with a ticket if it is let in under a bound; nullptr:
              it takes none (a wait owed is paid: it waits for room and a
              token, and holds nothing after)
  @return whether it was let in */
  bool enter(uint64_t now, ticket *t) noexcept
  {
    const unsigned bound= m_bound.load(std::memory_order_relaxed);
    if (bound && m_count.load(std::memory_order_seq_cst) >= bound)
      return false;
    if (m_clock.admit(now))
    {
      if (!m_rate_bound.load(std::memory_order_relaxed))
        m_rate_bound.store(true, std::memory_order_relaxed);
      return false;
    }
    if (!bound || !t)
      return true;
    unsigned n= m_count.load(std::memory_order_relaxed);
    do
      if (n >= bound)
      {
        /* filled since the first look: the token goes back */
        m_clock.refund();
        return false;
      }
    while (!m_count.compare_exchange_weak(n, n + 1,
                                          std::memory_order_seq_cst,
                                          std::memory_order_relaxed));
    t->held= true;
    return true;
  }

  /** Give a ticket back.
  @param t  the ticket (none: no-op); cleared
  @return whether one was given back */
  bool leave(ticket &t) noexcept
  {
    if (!t.held)
      return false;
    t.held= false;
    m_count.fetch_sub(1, std::memory_order_seq_cst);
    return true;
  }

  /** @return nanoseconds until the commit rate allows the next admission
  (0: now, or no rate)
  @param now  a monotonic clock, in nanoseconds */
  uint64_t token_wait(uint64_t now) const noexcept
  { return m_clock.wait(now); }

  /** Set the commit rate limit and the bound; with neither, the gate
  opens.  Tickets out stay counted, and are given back as usual.
  @param now          a monotonic clock, in nanoseconds
  @param rate         the commit rate limit, transactions per second
                      (0 = none)
  @param concurrency  the bound on tickets out (0 = none)
  @return concurrency() */
  unsigned resize(uint64_t now, uint64_t rate, unsigned concurrency= 0)
    noexcept
  {
    m_rate_bound.store(false, std::memory_order_relaxed);
    m_clock.set(now, rate);
    m_bound.store(concurrency, std::memory_order_relaxed);
    const unsigned limit= concurrency ? concurrency : rate ? ~0U : 0;
    m_limit.store(limit, std::memory_order_relaxed);
    return limit;
  }

  /** Hand out tickets without a bound (tests: an unlimited gate counts
  its tickets as a bounded one does), until the next resize(). */
  void track() noexcept
  {
    if (!m_bound.load(std::memory_order_relaxed))
    {
      m_bound.store(~0U, std::memory_order_relaxed);
      m_limit.store(~0U, std::memory_order_relaxed);
    }
  }

  /** @return the limit (0 = none; ~0U: a rate alone, or track()) */
  unsigned concurrency() const noexcept
  { return m_limit.load(std::memory_order_relaxed); }
  /** @return whether the commit rate kept one out since resize() */
  bool rate_bound() const noexcept
  { return m_rate_bound.load(std::memory_order_relaxed); }
  /** @return tickets out */
  unsigned running() const noexcept
  { return m_count.load(std::memory_order_relaxed); }

private:
  /** the bound on tickets out (0: none, no ticket is taken); written by
  resize() only */
  alignas(CACHE_LINE) std::atomic<unsigned> m_bound{0};
  /** concurrency() */
  std::atomic<unsigned> m_limit{0};
  /** the commit rate kept one out since resize() */
  std::atomic<bool> m_rate_bound{false};
  /** tickets out; with m_clock, written at every admission */
  alignas(CACHE_LINE) std::atomic<unsigned> m_count{0};
  /** the commit rate limit */
  rate_clock m_clock;
};
} // namespace purge_throttle

#endif
