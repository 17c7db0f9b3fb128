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
@param delay        the per-row DML delay in force
@return whether to run another batch rather than go idle */
constexpr bool coordinator_continues(bool coupled, size_t batch_pages,
                                     uint64_t delay) noexcept
{
  return batch_pages || (coupled && delay);
}

/** The fork's adaptive throttle (innodb_purge_throttle=adaptive): holds the
history length near a target (innodb_max_purge_lag) without a hand-tuned
delay.  Upstream's formula leaves three gaps that this closes:
 - the purge coordinator goes idle when a batch finds nothing to purge (or
   the history is momentarily empty), and nothing wakes it for up to a
   second (srv_master_callback) while DML piles up history: on this 2-core
   machine 8 connections commit 50,000 transactions in that second. The
   adaptive mode wakes it at commit and keeps it polling while history is
   over half the target;
 - a fixed cap (innodb_max_purge_lag_delay, 5 ms in the field) cannot slow
   hundreds of threads down to the purge rate;
 - the per-row delay is taken inside the transaction, holding its row locks
   and read view: at 256 threads that made the history longer than no
   throttle at all.  The adaptive wait is taken once per read-write
   transaction, after its commit, when it holds nothing.
It estimates the purge rate (the transactions purge parsed, while it had
work; a drop within a second, a rise over seconds) and admits commits at
that rate plus a correction that closes the gap to the target over about
TAU seconds (commit_pacer), from pace_from() down to half the target.  It
limits the commit rate rather than choosing a delay, because a server that
is saturated does not commit more slowly when its threads are delayed a
little: they only queue less inside it.  Its commit rate falls only once
the delay exceeds that queueing, and then steeply.  A controller that
scaled a delay by the ratio of measured to wanted commit rate swung between
free running and 100 ms delays at 256 threads there.  From half the target
it also widens the drain of rollback segments (drain_width()).  Updated
only by the purge coordinator, after each batch. */
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
  microseconds.  On 2 cores purge's rate rises when DML is throttled,
  because DML leaves it CPU; an estimate that followed that within a
  second raised the limit at once, which took the CPU back, and the two
  swung with a period of a few seconds. */
  static constexpr uint64_t RISE_TAU= 4000000;
  /** Shortest interval over which rates are measured, in microseconds */
  static constexpr uint64_t WINDOW= 50000;
  /** Poll interval of the coordinator while over target with nothing to
  purge yet, in microseconds */
  static constexpr uint64_t POLL= 10000;
  /** The lowest commit rate admitted, as a share of the purge rate: the
  throttle slows DML down, it never stops it */
  static constexpr double MIN_SHARE= 0.05;

  /** @return the history length over which pacing starts: three quarters
  of the target.  Pacing costs more than the commits it holds back: on 2
  cores purge parsed 3,300..3,900 transactions a second while DML was paced
  (by this limit or by sysbench --rate) against 4,800..5,400 while it was
  not, so a limit that matches the commit rate to purge's rate holds purge
  at the slower rate.  From half the target the drain of rollback segments
  (drain_width()) and unpaced purge usually keep the history under the
  target by themselves.  Once started, pacing goes on down to half the
  target, so that it does not flip at a single threshold.
  @param target  innodb_max_purge_lag */
  static constexpr uint64_t pace_from(uint64_t target) noexcept
  { return target - target / 4; }

  /** Feed the state after a purge batch.
  @param now      a monotonic clock, in microseconds
  @param history  history length
  @param purged   a counter of the committed transactions that purge has
                  parsed; unlike the history length, which shows purge's
                  progress in steps (undo log truncation after batches), it
                  advances with every batch
  @param target   innodb_max_purge_lag (0 = no throttling)
  @param progress whether purge can progress (no old read view blocks it)
  @return the commit rate to admit, read-write transactions per second;
  0 = no limit */
  uint64_t update(uint64_t now, uint64_t history, uint64_t purged,
                  uint64_t target, bool progress) noexcept
  {
    /* Drain from over half the target down to a quarter: not flipping at
    a single threshold spares the rollback segments' SKIP flags churn. */
    m_draining= target && banded(m_draining, history, target / 2, target / 4);
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
      return pacing(history, target) ? m_limit : m_limit= 0;
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
    if (!pacing(history, target) || m_purge_rate <= 0)
      return m_limit= 0;
    /* the commit rate that brings the history to the target in ~TAU */
    const double tau= double(TAU) * 1e-6;
    const double wanted= std::max(MIN_SHARE * m_purge_rate, m_purge_rate +
                                  (double(target) - double(history)) / tau);
    return m_limit= std::max(uint64_t{1}, uint64_t(wanted));
  }

  /** How many rollback segments undo log truncation may withhold at once
  (rseg_drain).  Much of a long history at high concurrency is history that
  purge has processed and that waits for undo log truncation, which the
  commit rate limit does not touch while purge keeps up: the drain frees
  it, at no cost that the benchmarks could measure.  So while the history
  is over half the target (until it is down to a quarter) the adaptive
  throttle drains as widely as rseg_drain allows.
  @return the least width to apply (innodb_purge_drain_rsegs may ask for
  more) */
  unsigned drain_width() const noexcept
  { return m_draining ? rseg_drain::MAX_WIDTH : 0; }

  /** @return the commit rate limit, transactions per second (0 = none) */
  uint64_t limit() const noexcept { return m_limit; }
  /** @return the estimated purge rate, transactions per second */
  double purge_rate() const noexcept { return m_purge_rate; }
  /** @return the history length minus the target at the last update */
  int64_t error() const noexcept
  { return int64_t(m_history) - int64_t(m_target); }

  /** Age after which a published limit no longer applies, in
  microseconds: while it throttles, the coordinator updates the limit every
  POLL at least, so an older one is not backed by a running purge */
  static constexpr uint64_t STALE= 1000000;

  /** Whether a thread that committed a read-write transaction is paced.
  @param limit          the published commit rate limit
  @param age            microseconds since the controller published it
  @param purge_running  purge is enabled and not paused
  @return whether to wait for a commit slot */
  static constexpr bool limit_applies(uint64_t limit, uint64_t age,
                                      bool purge_running) noexcept
  { return limit && purge_running && age < STALE; }

  /** @return whether the coordinator should poll again rather than go
  idle after a batch that found nothing to purge */
  static constexpr bool keep_polling(uint64_t history, uint64_t target)
    noexcept
  { return over_half(history, target); }

private:
  /** @return whether the history is over half the target, from where the
  throttle acts: it polls, drains and paces there (0 = no target) */
  static constexpr bool over_half(uint64_t history, uint64_t target) noexcept
  { return target && history > target / 2; }

  /** @return whether something that starts once the history exceeds on_over
  and stops once it is down to off_at (< on_over) is on now
  @param on       whether it was on */
  static constexpr bool banded(bool on, uint64_t history, uint64_t on_over,
                               uint64_t off_at) noexcept
  { return history > (on ? off_at : on_over); }

  /** @return whether commits are paced now: from pace_from() down to half
  the target (a limit in force is the state) */
  bool pacing(uint64_t history, uint64_t target) const noexcept
  { return banded(m_limit != 0, history, pace_from(target), target / 2); }

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
};

/** Admits committed read-write transactions at no more than a given rate:
each takes the next free slot, one interval after the previous one, and
waits until its slot comes.  Shared by all DML threads; one compare-and-swap
per transaction, only while a limit is in force. */
class commit_pacer
{
public:
  /** Unused slots that may be taken at once after a pause, in nanoseconds:
  commits arrive in groups (group commit) */
  static constexpr uint64_t BURST= 5000000;
  /** Upper bound of a wait, in nanoseconds */
  static constexpr uint64_t MAX_WAIT= 1000000000;

  /** Take a slot.
  @param now   a monotonic clock, in nanoseconds
  @param rate  transactions per second to admit (0 = no limit)
  @return nanoseconds to wait until the slot */
  uint64_t admit(uint64_t now, uint64_t rate) noexcept
  {
    if (!rate)
      return 0;
    const uint64_t interval= std::max(uint64_t{1}, 1000000000 / rate);
    const uint64_t earliest= now > BURST ? now - BURST : 0;
    uint64_t next= m_next.load(std::memory_order_relaxed), slot;
    do
      /* no wind-up: slots left unused longer than BURST are gone, and
      no wait exceeds MAX_WAIT */
      slot= std::min(std::max(next, earliest), now + MAX_WAIT);
    while (!m_next.compare_exchange_weak(next, slot + interval,
                                         std::memory_order_relaxed));
    return slot > now ? slot - now : 0;
  }

  /** @return nanoseconds that a transaction committing now would wait
  @param now   a monotonic clock, in nanoseconds */
  uint64_t wait(uint64_t now) const noexcept
  {
    const uint64_t next= m_next.load(std::memory_order_relaxed);
    return next > now ? std::min(next - now, uint64_t{MAX_WAIT}) : 0;
  }

private:
  std::atomic<uint64_t> m_next{0};
};

} // namespace purge_throttle

#endif
