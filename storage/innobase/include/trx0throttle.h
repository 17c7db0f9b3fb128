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
#include <cstddef>
#include <cstdint>

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
   throttle at all.  The adaptive delay is taken once per read-write
   transaction, after its commit, when it holds nothing.
It estimates the purge rate (the transactions purge parsed, while it had
work) and the commit rate, and sets the per-transaction delay so that DML
commits at the purge rate plus a correction that closes the gap to the
target over about TAU seconds.  The commit rate is inversely proportional to
the time a transaction takes (its work plus the delay), so the delay is
scaled by the ratio of measured to wanted commit rate, limited to [1/2, 4]
per update.  Updated only by the purge coordinator, after each batch. */
class adaptive_controller
{
public:
  /** Upper bound of the per-transaction delay, in microseconds: 1 s, so
  that even a thousand threads can be slowed down to a purge rate of 1000/s */
  static constexpr uint64_t MAX_DELAY= 1000000;
  /** Assumed work of a transaction when scaling from no delay, in
  microseconds; a wrong guess only slows the first steps of the approach */
  static constexpr uint64_t TRX_US= 1000;
  /** Delays below this are not worth a sleep, in microseconds */
  static constexpr uint64_t MIN_DELAY= 10;
  /** Time constant of the approach to the target, in microseconds */
  static constexpr uint64_t TAU= 2000000;
  /** Time constant of the purge rate estimate, in microseconds: a few
  purge batches, so that a drop of purge's capacity (for example after a
  backlog was caught up in large batches) is seen within a second */
  static constexpr uint64_t RATE_TAU= 500000;
  /** Shortest interval over which rates are measured, in microseconds */
  static constexpr uint64_t WINDOW= 50000;
  /** Poll interval of the coordinator while over target with nothing to
  purge yet, in microseconds */
  static constexpr uint64_t POLL= 10000;

  /** Feed the state after a purge batch.
  @param now      a monotonic clock, in microseconds
  @param history  history length
  @param commits  a counter of committed read-write transactions
  @param purged   a counter of the committed transactions that purge has
                  parsed; unlike the history length, which shows purge's
                  progress in steps (undo log truncation after batches), it
                  advances with every batch
  @param target   innodb_max_purge_lag (0 = no throttling)
  @param progress whether purge can progress (no old read view blocks it)
  @return the per-transaction DML delay to publish, in microseconds */
  uint64_t update(uint64_t now, uint64_t history, uint64_t commits,
                  uint64_t purged, uint64_t target, bool progress) noexcept
  {
    if (!target || !progress)
    {
      /* never delay while purge cannot progress or without a target;
      the next throttle starts afresh (no wind-up), and no rate is
      measured across the time purge was blocked */
      m_now= 0;
      return m_delay= 0;
    }
    const bool first= !m_now;
    const double dt= first ? 0 : double(now - m_now) * 1e-6;
    if (!first && dt < WINDOW * 1e-6)
      return m_delay;                 /* measure rates over a window */
    const double dc= double(commits - m_commits);
    const double dp= purged > m_purged ? double(purged - m_purged) : 0;
    const uint64_t window_start_history= m_history;
    m_now= now; m_history= history; m_commits= commits; m_purged= purged;
    m_target= target;
    if (first)
      return m_delay;
    const double commit_rate= dc / dt;
    if (window_start_history > target / 4)
    {
      /* Purge had work throughout the window: what it parsed is its
      capacity, averaged over RATE_TAU because it parses a batch at a
      time. */
      const double weight= dt / (dt + double(RATE_TAU) * 1e-6);
      m_purge_rate= m_purge_rate > 0
        ? m_purge_rate + weight * (dp / dt - m_purge_rate) : dp / dt;
    }
    if (history <= target / 2)
      return m_delay= 0;

    /* the commit rate that brings the history to the target in ~TAU */
    const double tau= double(TAU) * 1e-6;
    const double floor_rate= 0.05 * m_purge_rate;
    const double wanted= std::max(floor_rate, m_purge_rate +
                                  (double(target) - double(history)) / tau);
    if (commit_rate <= 0 || wanted <= 0)
      return m_delay;
    if (!m_delay && commit_rate <= wanted)
      return 0;
    const double ratio= std::min(4.0, std::max(0.5, commit_rate / wanted));
    const double next= (double(m_delay) + double(TRX_US)) * ratio -
      double(TRX_US);
    m_delay= next < double(MIN_DELAY)
      ? 0 : std::min(uint64_t(next), uint64_t{MAX_DELAY});
    return m_delay;
  }

  /** @return the current delay in microseconds */
  uint64_t delay() const noexcept { return m_delay; }
  /** @return the estimated purge rate, transactions per second */
  double purge_rate() const noexcept { return m_purge_rate; }
  /** @return the history length minus the target at the last update */
  int64_t error() const noexcept
  { return int64_t(m_history) - int64_t(m_target); }

  /** Age after which a published delay no longer applies, in
  microseconds: while it throttles, the coordinator updates the delay every
  POLL at least, so an older one is not backed by a running purge */
  static constexpr uint64_t STALE= 1000000;

  /** Whether a thread that committed a read-write transaction sleeps.
  @param delay          the published per-transaction delay
  @param age            microseconds since the controller published it
  @param purge_running  purge is enabled and not paused
  @return whether to sleep the delay */
  static constexpr bool trx_delay_applies(uint64_t delay, uint64_t age,
                                          bool purge_running) noexcept
  { return delay && purge_running && age < STALE; }

  /** @return whether the coordinator should poll again rather than go
  idle after a batch that found nothing to purge */
  static constexpr bool keep_polling(uint64_t history, uint64_t target)
    noexcept
  { return target && history > target / 2; }

private:
  uint64_t m_delay= 0;
  uint64_t m_now= 0;
  uint64_t m_history= 0;
  uint64_t m_commits= 0;
  uint64_t m_purged= 0;
  uint64_t m_target= 0;
  double m_purge_rate= 0;
};

} // namespace purge_throttle

#endif
