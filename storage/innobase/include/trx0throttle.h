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

/** The fork's adaptive throttle (innodb_purge_throttle=adaptive): holds the
history length near a target (innodb_max_purge_lag) by limiting the rate of
read-write commits (enforced by admission_gate), and widens the drain of
rollback segments (drain_width()).  The limit is the estimated purge rate
plus a correction that closes the gap to the target in about TAU; it is in
force from pace_from() down to act_from(), never below MIN_SHARE of the
purge rate, never without a target or while purge cannot progress.  Updated
only by the purge coordinator, after each batch.  Why a rate limit and not
a delay, and what was measured: docs/adaptive-throttle.md. */
class adaptive_controller
{
public:
  /** Time constant of the approach to the target, in microseconds */
  static constexpr uint64_t TAU= 2000000;
  /** Time constant of the purge rate estimate when the rate falls, in
  microseconds: a few purge batches, so that a drop of purge's capacity
  (for example after a backlog was caught up in large batches) is seen
  within a second */
  static constexpr uint64_t RATE_TAU= 500000;
  /** Time constant of the purge rate estimate when the rate rises, in
  microseconds: slower than RATE_TAU, so that a purge rate that rises
  because DML is throttled does not raise the limit at once */
  static constexpr uint64_t RISE_TAU= 4000000;
  /** Shortest interval over which rates are measured, in microseconds */
  static constexpr uint64_t WINDOW= 50000;
  /** The lowest commit rate admitted, as a share of the purge rate: the
  throttle slows DML down, it never stops it */
  static constexpr double MIN_SHARE= 0.05;

  /** @return the history length from which the throttle acts (the
  coordinator polls and a commit wakes it) and down to which the drain and
  pacing go on once started, so that neither flips at a single threshold:
  three quarters of the target.
  @param target  innodb_max_purge_lag */
  static constexpr uint64_t act_from(uint64_t target) noexcept
  { return target - target / 4; }

  /** @return the history length over which the drain of rollback segments
  starts (drain_width()): 95% of the target, so that the drain, which costs
  nothing measurable, acts before the commit rate limit does
  @param target  innodb_max_purge_lag */
  static constexpr uint64_t drain_from(uint64_t target) noexcept
  { return target - target / 20; }

  /** @return the history length over which the commit rate is limited:
  the target itself, as upstream's formula delays DML only over
  innodb_max_purge_lag, and after the drain, which costs nothing
  measurable, has had its chance.  The limit then holds the history at the
  target.
  @param target  innodb_max_purge_lag */
  static constexpr uint64_t pace_from(uint64_t target) noexcept
  { return target; }

  /** Feed the state after a purge batch.
  @param now      a monotonic clock, in microseconds
  @param history  history length
  @param purged   a counter of the committed transactions that purge has
                  parsed; unlike the history length, which shows purge's
                  progress in steps (undo log truncation after batches), it
                  advances with every batch
  @param target   innodb_max_purge_lag (0 = no throttling)
  @param progress whether purge can progress (no old read view blocks it)
  @param inside   read-write transactions that have not committed yet: the
                  limit acts on history + inside, the history that they
                  will leave, since a limit does not stop them
  @return the commit rate to admit, read-write transactions per second;
  0 = no limit */
  uint64_t update(uint64_t now, uint64_t history, uint64_t purged,
                  uint64_t target, bool progress, uint64_t inside= 0)
    noexcept
  {
    const uint64_t projected= history + inside;
    /* not flipping at a single threshold spares the rollback segments'
    SKIP flags churn */
    /* withholding rollback segments cannot help while purge cannot
    progress: the drain gives them back then */
    m_draining= target && progress &&
      banded(m_draining, history, drain_from(target), act_from(target));
    if (!target || !progress)
    {
      /* never throttle while purge cannot progress or without a target;
      the next throttle starts afresh (no wind-up), and no rate is
      measured across the time purge was blocked */
      m_now= 0;
      return m_limit= 0;
    }
    const bool first= !m_now;
    const double dt= first ? 0 : double(now - m_now) * 1e-6;
    if (!first && dt < WINDOW * 1e-6)
      /* measure rates over a window, but lift the limit at once when
      purge has caught up: the coordinator may go idle now */
      return pacing(projected, target) ? m_limit : m_limit= 0;
    const double dp= purged > m_purged ? double(purged - m_purged) : 0;
    const uint64_t window_start_history= m_history;
    m_now= now; m_history= history; m_purged= purged; m_target= target;
    if (first)
      return m_limit;
    if (window_start_history > target / 4)
    {
      /* Purge had work throughout the window: what it parsed is its
      capacity, averaged over RATE_TAU because it parses a batch at a
      time. */
      m_fast_rate= average(m_fast_rate, dp / dt, dt, RATE_TAU);
      m_slow_rate= average(m_slow_rate, dp / dt, dt, RISE_TAU);
      m_purge_rate= std::min(m_fast_rate, m_slow_rate);
    }
    if (!pacing(projected, target) || m_purge_rate <= 0)
      return m_limit= 0;
    /* the commit rate that brings the history to the target in ~TAU */
    const double tau= double(TAU) * 1e-6;
    const double wanted= std::max(MIN_SHARE * m_purge_rate, m_purge_rate +
                                  (double(target) - double(projected)) / tau);
    return m_limit= std::max(uint64_t{1}, uint64_t(wanted));
  }

  /** How many rollback segments undo log truncation may withhold at once
  (rseg_drain).  Much of a long history at high concurrency is history that
  purge has processed and that waits for undo log truncation, which the
  commit rate limit does not touch while purge keeps up: the drain frees
  it, at no cost that the benchmarks could measure.  So while the history
  is over drain_from() (until it is down to act_from()) the adaptive
  throttle drains as widely as rseg_drain allows.  So does it while
  truncation_cap() is on, which may come on under drain_from(): the cap
  frees history only through the segments that the drain withholds.
  @return the least width to apply (innodb_purge_drain_rsegs may ask for
  more) */
  unsigned drain_width() const noexcept
  { return m_draining || m_capping ? rseg_drain::ADAPTIVE_WIDTH : 0; }

  /** How many connections may run read-write transactions at once because
  undo log truncation lags.  Over the target, with most of the history
  processed by purge (more than half the target waits for truncation),
  a commit rate limit would only cost throughput: purge keeps up.  What
  keeps the history long is that truncation frees a rollback segment only
  once no transaction references it, and with many more connections than
  segments each withheld segment waits for every transaction that had
  taken it, the slowest of which queue for the CPU.  Capping the
  connections inside at the segments that new transactions can take
  leaves about one transaction per segment, so that a withheld segment
  drains within about one transaction.  On from cap_from() with more than
  half of that processed, or (not pooled) with a commit rate limit in
  force, off at cap_off(): a limit's waiters give up after MAX_WAIT, a
  cap's wait while the queue moves.  Both compare the history plus the
  transactions inside.  Once on, the history goes on growing until the
  connections that were inside end and the segments drain; so after each
  episode cap_from() moves by half the gap between the target and the
  history's 95th percentile over the cycle that the episode ends
  (time-weighted, cycle_p95()), within [target / 4, target]: the cap aims
  the percentile, not the start, at the target.  Unlike the rate limit it
  does not depend on purge's progress: purge has nothing to do while it
  has parsed all that truncation waits for.
  @param now        a monotonic clock, in microseconds
  @param history    history length
  @param unparsed   of it, what purge has not parsed yet
  @param target     innodb_max_purge_lag (0 = no throttling)
  @param available  rollback segments that new transactions can take
  @param inside     read-write transactions that have not committed yet:
                    the cap comes on and goes off by history + inside, as
                    the rate limit does (update())
  @param pooled     connections run in a thread pool, which bounds the
                    threads that run and where the waiters of a cap hold
                    pool workers: a commit rate limit in force does not
                    bring the cap on there (it does with a thread per
                    connection, where the limit does not bound the
                    transactions inside)
  @return the concurrency cap (0 = none) */
  unsigned truncation_cap(uint64_t now, uint64_t history, uint64_t unparsed,
                          uint64_t target, unsigned available,
                          uint64_t inside= 0, bool pooled= false) noexcept
  {
    if (target != m_cap_target)
    {
      m_cap_target= target;
      m_cap_from= target;
      m_cycle= cycle{};
    }
    else if (target && now > m_cycle.at)
    {
      if (m_cycle.at)
        m_cycle.time[cycle_bin(m_cycle.history, target)]+= now - m_cycle.at;
      m_cycle.at= now;
    }
    m_cycle.history= history;
    const uint64_t pending= history > unparsed ? history - unparsed : 0;
    const bool was= m_capping;
    const uint64_t projected= history + inside;
    m_capping= target &&
      (was ? projected > cap_off(m_cap_from, target)
       : projected > m_cap_from &&
       (pending > m_cap_from / 2 || (!pooled && m_limit)));
    if (m_capping)
      m_cap_peak= was ? std::max(m_cap_peak, history) : history;
    else if (was && target)
    {
      /* aim the next cycle's 95th percentile at the target */
      const int64_t from= int64_t(m_cap_from) +
        (int64_t(target) - int64_t(cycle_p95(target))) / 2;
      m_cap_from= uint64_t(std::min(int64_t(target),
                                    std::max(int64_t(target / 4), from)));
      /* the next cycle starts now */
      for (uint64_t &t : m_cycle.time)
        t= 0;
    }
    return m_capping ? std::max(available, unsigned{MIN_CAP}) : 0;
  }

  /** Bins of cycle_p95()'s histogram per target; the histogram reaches
  twice the target, and its last bin holds any longer history */
  static constexpr unsigned CYCLE_BINS_PER_TARGET= 32;
  static constexpr unsigned CYCLE_BINS= 2 * CYCLE_BINS_PER_TARGET + 1;

  /** @return the bin of a history length in the cycle's histogram
  @param target  the cap's target (nonzero) */
  static constexpr unsigned cycle_bin(uint64_t history, uint64_t target)
    noexcept
  {
    return history >= 2 * target ? CYCLE_BINS - 1
      : unsigned(history * CYCLE_BINS_PER_TARGET / target);
  }

  /** @return the history length that the history exceeded for 5% of the
  current cycle's time (the middle of its bin), at most the episode's
  peak; the peak if no time was measured or the percentile is over twice
  the target
  @param target  the cap's target (nonzero) */
  uint64_t cycle_p95(uint64_t target) const noexcept
  {
    uint64_t total= 0;
    for (uint64_t t : m_cycle.time)
      total+= t;
    uint64_t over= 0;
    for (unsigned bin= CYCLE_BINS; bin--; )
    {
      over+= m_cycle.time[bin];
      if (over * 20 > total)
        return bin == CYCLE_BINS - 1 ? m_cap_peak
          : std::min(m_cap_peak, (2 * bin + 1) * target /
                     (2 * CYCLE_BINS_PER_TARGET));
    }
    return m_cap_peak;
  }

  /** @return the history down to which a cap that came on over `from`
  stays on: target / 4 lower, but at least half of `from` */
  static constexpr uint64_t cap_off(uint64_t from, uint64_t target) noexcept
  { return from - (target / 4 < from / 2 ? target / 4 : from / 2); }

  /** Ease a truncation cap out rather than lift it at once: after an
  episode the cap doubles every RELEASE_STEP, from its last value, and is
  lifted once it reaches RELEASE_END, or at once when there is nothing
  to ease.  Lifted at once, it lets thousands of waiters in together, onto
  the same rows.  Where letting them all in would overshoot, it is held
  at RELEASE_END / 2 instead of lifted.  A new episode takes over.
  @param now   a monotonic clock, in microseconds
  @param cap   truncation_cap()
  @param ease  whether to ease: the cap is switched on, with a target, and
               connections wait at the gate
  @param hold  hold(): letting every waiter in would overshoot; then the
               cap is not lifted at RELEASE_END but held at RELEASE_END / 2
               until that is no longer so
  @return the cap to publish (0 = none) */
  unsigned ease_out(uint64_t now, unsigned cap, bool ease, bool hold= false)
    noexcept
  {
    if (cap || !ease)
    {
      m_release= ease ? cap : 0;
      m_release_at= now;
      return cap;
    }
    if (m_release && now - m_release_at >= RELEASE_STEP)
    {
      m_release= m_release * 2 < RELEASE_END ? m_release * 2
        : hold ? RELEASE_END / 2 : 0;
      m_release_at= now;
    }
    return m_release;
  }

  /** @return whether ease_out() holds an eased cap rather than lifting
  it: letting every waiter in would take the history over act_from(), or
  more wait than RELEASE_END / 2, all of whom would come in at once onto
  the same rows.  In a thread pool, where each waiter holds a pool worker,
  only while the history is at least a quarter of the target.
  @param history  history length
  @param inside   read-write transactions not committed yet
  @param waiting  connections waiting at the gate
  @param target   the cap's target
  @param pooled   connections run in a thread pool */
  static constexpr bool hold(uint64_t history, uint64_t inside,
                             uint64_t waiting, uint64_t target,
                             bool pooled= false) noexcept
  {
    return history + inside + waiting > act_from(target) ||
      (waiting > RELEASE_END / 2 && (!pooled || history >= target / 4));
  }

  /** @return whether a truncation cap is on or being eased out.  Until it
  is lifted the coordinator must keep looking: a cap that it stops
  republishing goes stale (STALE) and lets every waiter in at once. */
  bool capping() const noexcept { return m_capping || m_release; }

  /** Interval of ease_out()'s doubling, in microseconds */
  static constexpr uint64_t RELEASE_STEP= 200000;
  /** ease_out() lifts a cap that reaches this (admission_gate::MAX_SLOTS:
  no limit) */
  static constexpr unsigned RELEASE_END= 1024;

  /** @return the history length over which truncation_cap() comes on next
  (0 = no target) */
  uint64_t cap_from() const noexcept { return m_cap_from; }

  /** The least truncation_cap() */
  static constexpr unsigned MIN_CAP= 2;

  /** @return the commit rate limit, transactions per second (0 = none) */
  uint64_t limit() const noexcept { return m_limit; }
  /** @return the estimated purge rate, transactions per second */
  double purge_rate() const noexcept { return m_purge_rate; }
  /** @return the history length minus the target at the last update */
  int64_t error() const noexcept
  { return int64_t(m_history) - int64_t(m_target); }

  /** Age after which a published limit no longer applies, in
  microseconds: while it throttles, the coordinator updates the limit at
  least every POLL_MAX, so an older one is not backed by a running purge */
  static constexpr uint64_t STALE= 1000000;
  /** Age after which a limit published before a purge batch no longer
  applies while that batch still runs, in microseconds: a batch that walks
  long version chains can take seconds, and a limit or cap that lapsed
  meanwhile let every waiter go at once */
  static constexpr uint64_t STALE_IN_BATCH= 10000000;

  /** Whether a thread that committed a read-write transaction is paced.
  @param limit          the published commit rate limit
  @param age            microseconds since the controller published it
  @param purge_running  purge is enabled and not paused
  @param in_batch       the purge batch that followed the publication runs
  @return whether to wait for a commit slot */
  static constexpr bool limit_applies(uint64_t limit, uint64_t age,
                                      bool purge_running,
                                      bool in_batch= false) noexcept
  {
    return limit && purge_running &&
      age < (in_batch ? STALE_IN_BATCH : STALE);
  }

  /** @return whether the coordinator should poll again rather than go
  idle after a batch that found nothing to purge */
  static constexpr bool keep_polling(uint64_t history, uint64_t target)
    noexcept
  { return target && history > act_from(target); }

private:
  /** @return whether something that starts once the history exceeds on_over
  and stops once it is down to off_at (< on_over) is on now
  @param on       whether it was on */
  static constexpr bool banded(bool on, uint64_t history, uint64_t on_over,
                               uint64_t off_at) noexcept
  { return history > (on ? off_at : on_over); }

  /** @return whether commits are paced now: from pace_from() down to
  act_from() (a limit in force is the state) */
  bool pacing(uint64_t history, uint64_t target) const noexcept
  {
    return banded(m_limit != 0, history, pace_from(target),
                  act_from(target));
  }

  /** @return an exponential moving average of a rate
  @param avg   the average so far (0 = none)
  @param rate  the rate measured over dt seconds
  @param tau   time constant in microseconds */
  static double average(double avg, double rate, double dt, uint64_t tau)
    noexcept
  {
    return avg > 0 ? avg + dt / (dt + double(tau) * 1e-6) * (rate - avg)
      : rate;
  }

  uint64_t m_limit= 0;
  uint64_t m_now= 0;
  uint64_t m_history= 0;
  uint64_t m_purged= 0;
  uint64_t m_target= 0;
  /** the purge rate averaged over RATE_TAU and over RISE_TAU */
  double m_fast_rate= 0, m_slow_rate= 0;
  /** the lower of the two: drops are seen soon, rises late */
  double m_purge_rate= 0;
  /** whether truncation drains rollback segments (drain_width()) */
  bool m_draining= false;
  /** whether truncation_cap() caps the connections inside */
  bool m_capping= false;
  /** the target that m_cap_from was aimed for */
  uint64_t m_cap_target= 0;
  /** the history over which the cap comes on: in [target / 4, target] */
  uint64_t m_cap_from= 0;
  /** the highest history of the cap's current episode */
  uint64_t m_cap_peak= 0;
  /** The cap's current cycle: from the end of its previous episode (or
  from a new target) to the end of the current one */
  struct cycle
  {
    /** microseconds spent in each bin of cycle_bin() */
    uint64_t time[CYCLE_BINS]= {};
    /** the clock and the history at the previous truncation_cap() */
    uint64_t at= 0;
    uint64_t history= 0;
  } m_cycle;
  /** ease_out(): the cap published (0: none), and since when */
  unsigned m_release= 0;
  uint64_t m_release_at= 0;
};

/** Admission control for the adaptive throttle's commit rate limit: at most
concurrency() connections run read-write transactions at once; the others
wait, holding nothing, until one of those ends its transaction.  By Little's
law a rate of R commits a second at H seconds per transaction needs R * H
connections inside: the gate measures H (from admission to the end of the
transaction) and resizes itself from the controller's rate.
A connection holds a ticket: a slot and the time it was let in.  A ticket
that is not given back within LEASE expires, so that no slot is lost for
good.  Not thread-safe: callers serialise (trx0gate.h). */
class admission_gate
{
public:
  /** Slots that can be handed out; a limit at least this large is none */
  static constexpr unsigned MAX_SLOTS= 1024;
  /** The least concurrency: the throttle slows DML down, it never stops
  it */
  static constexpr unsigned MIN_CONCURRENCY= 2;
  /** Age after which a ticket expires, in nanoseconds: MAX_WAIT, many
  times the time from admission to commit of a short transaction.  A
  transaction in row lock waits on hot rows can take longer than a shorter
  lease; its expired slot let one more in, onto the same rows. */
  static constexpr uint64_t LEASE= 1000000000;
  /** Shortest interval over which the holding time is measured, in
  nanoseconds */
  static constexpr uint64_t WINDOW= 50000000;
  /** Upper bound of a wait at the gate, in nanoseconds */
  static constexpr uint64_t MAX_WAIT= 1000000000;

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

  /** Let a thread in if fewer than concurrency() hold a ticket.
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
        /* more threads than slots before the first measurement */
        return m_limit >= MAX_SLOTS;
    }
    t.slot= m_free[--m_n_free];
    t.since= m_since[t.slot]= now;
    return true;
  }

  /** Give a ticket back: the thread committed.
  @param now  a monotonic clock, in nanoseconds
  @param t    the ticket (none: no-op); cleared
  @return whether a slot was freed (the ticket had not expired) */
  bool leave(uint64_t now, ticket &t) noexcept
  {
    const uint64_t since= t.since;
    t.since= 0;
    if (!since || m_since[t.slot] != since)
      return false;
    free_slot(t.slot);
    if (now > since)
    {
      m_held+= now - since;
      m_returned++;
    }
    return true;
  }

  /** Set the concurrency for a commit rate limit, from the time a ticket
  was held since the last resize that measured one, and a cap.
  @param now   a monotonic clock, in nanoseconds
  @param rate  the commit rate limit, transactions per second (0 = none)
  @param cap   at most this many inside (0 = no cap)
  @return concurrency() */
  unsigned resize(uint64_t now, uint64_t rate, unsigned cap= 0) noexcept
  {
    if (!rate)
    {
      /* tickets that are out stay valid and are given back as usual */
      m_window_start= 0;
      return m_limit= cap < MAX_SLOTS ? cap : 0;
    }
    if (m_window_start)
    {
      if (now - m_window_start < WINDOW || !m_returned)
        return m_limit= capped(m_by_rate, cap);
      m_hold= double(m_held) / double(m_returned) * 1e-9;
    }
    /* else a limit comes into force: start from the holding time measured
    last (the next windows correct it); if there is none yet, let everyone
    in and measure */
    m_window_start= now;
    m_held= m_returned= 0;
    m_by_rate= m_hold > 0 ? concurrency_for(rate, m_hold) : MAX_SLOTS;
    return m_limit= capped(m_by_rate, cap);
  }

  /** @return threads to let in at once for a commit rate
  @param rate  transactions per second
  @param hold  seconds from a thread's admission to its commit */
  static unsigned concurrency_for(uint64_t rate, double hold) noexcept
  {
    const double n= double(rate) * hold + 0.5;
    return n >= MAX_SLOTS ? MAX_SLOTS
      : std::max(unsigned{MIN_CONCURRENCY}, unsigned(n));
  }

  /** @return the concurrency limit (0 = none) */
  unsigned concurrency() const noexcept { return m_limit; }
  /** @return tickets out (some may have expired unnoticed) */
  unsigned running() const noexcept { return MAX_SLOTS - m_n_free; }

private:
  static unsigned capped(unsigned n, unsigned cap) noexcept
  { return cap && cap < n ? cap : n; }

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
  unsigned m_limit= 0;
  uint64_t m_last_expiry= 0;
  /** start of the holding time measurement (0: none) */
  uint64_t m_window_start= 0;
  /** nanoseconds that the tickets given back since then were held */
  uint64_t m_held= 0;
  uint64_t m_returned= 0;
  /** the holding time measured last, in seconds (0: none yet) */
  double m_hold= 0;
  /** the concurrency that the rate limit asks for */
  unsigned m_by_rate= MAX_SLOTS;
};

} // namespace purge_throttle

#endif
