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
@file include/trx0drain.h
Which rollback segments undo log truncation withholds from new transactions
(innodb_purge_drain_rsegs): the pure decision logic.

Undo log truncation (purge_sys_t::iterator::free_history_rseg()) removes
the undo logs that purge has processed from a rollback segment's history
only while no transaction references that rollback segment.  Transactions
take the 128 rollback segments in turn, so with more concurrent writers than
about 128 nearly every rollback segment is referenced at every truncation
pass, and the history length keeps counting transactions that purge has
long finished with.  purge_sys.skipped_rseg breaks the deadlock one rollback
segment at a time: it withholds that segment from new transactions until a
pass frees its history, then moves on to the next.  That rotation takes
two passes per rollback segment, 256 passes in all, and each rollback
segment piles up history for that long.

The drain withholds up to innodb_purge_drain_rsegs rollback segments at
once, taken in turn by a cursor, and gives each back as soon as a pass
found it drained (nothing left that purge has processed) and unreferenced.

Nothing here depends on InnoDB's state, so that it can be unit tested;
srv0purgelab_drain.cc applies it to the rollback segments.  Only the thread
that runs undo log truncation calls it (one at a time: the coordinator waits
for purge_truncation_task before it truncates itself).
*******************************************************/

#ifndef trx0drain_h
#define trx0drain_h

#include <algorithm>
#include <bitset>
#include <cstdint>

namespace purge_throttle
{

class rseg_drain
{
public:
  /** Number of rollback segments (TRX_SYS_N_RSEGS) */
  static constexpr unsigned N_RSEGS= 128;
  /** Upper bound of innodb_purge_drain_rsegs: new transactions keep at
  least a quarter of the rollback segments, whose undo log slots
  (TRX_RSEG_N_SLOTS each, 256 at 4 KiB pages) serve 4096 connections */
  static constexpr unsigned MAX_WIDTH= N_RSEGS / 4 * 3;

  /** What one truncation pass found in a rollback segment */
  struct visit
  {
    /** index in trx_sys.rseg_array */
    unsigned rseg;
    /** the pass stopped at history that purge had processed but that it
    could not free: the segment was referenced, or the purge view did not
    see its last transaction yet */
    bool busy;
    /** transactions reference the segment now */
    bool referenced;
    /** the segment is withheld from new transactions now (trx_rseg_t::SKIP),
    by anyone */
    bool skip;
    /** its undo tablespace is being truncated, which owns the SKIP flag */
    bool tablespace_truncating;
  };

  /** The tablespace of a visited rollback segment */
  struct tablespace
  {
    /** a number below N_RSEGS that no other tablespace of a rollback
    segment has */
    unsigned key;
    /** how many rollback segments it has (0: all N_RSEGS) */
    unsigned rsegs;
  };

  /** @return how many rollback segments of a tablespace with n of them
  the drain may withhold: MAX_WIDTH's share of them.  Undo tablespace
  truncation may start at any time and withhold all of another
  tablespace's segments before the drain sees it: new transactions keep
  a quarter of every tablespace's segments at every moment.
  @param n  rollback segments in the tablespace (0: all N_RSEGS) */
  static constexpr unsigned space_width(unsigned n) noexcept
  { return (n ? n : N_RSEGS) * MAX_WIDTH / N_RSEGS; }

  /** What to do with the rollback segment's SKIP flag */
  enum action { KEEP, WITHHOLD, RELEASE };

  /** Decide after a truncation pass visited a rollback segment.
  Every segment is visited in each pass, in index order.
  @param v      what the pass found
  @param width  innodb_purge_drain_rsegs (0: give all back, withhold none)
  @param space  the segment's tablespace (default: one for all)
  @return the action for the segment's SKIP flag */
  action visited(const visit &v, unsigned width,
                 tablespace space= tablespace{0, 0}) noexcept
  {
    if (v.rseg >= N_RSEGS)
      return KEEP;
    if (!v.rseg)
    {
      /* a pass starts: what others withheld in the last one is known */
      m_others_last= m_others_now;
      m_others_now= 0;
    }
    if (m_withheld[v.rseg])
    {
      if (!v.skip || v.tablespace_truncating)
      {
        /* Undo tablespace truncation took the flag over, or reinitialized
        the segment and cleared it: the segment is not ours any more. */
        forget(v.rseg);
        m_others_now+= v.skip;
        return KEEP;
      }
      /* A segment may only be given back when nobody references it
      (trx_rseg_t::clear_skip_allocation()); no new reference can appear
      while it is withheld. */
      if (v.referenced ||
          (v.busy && withheld() <= width && withheld() + others() <= MAX_WIDTH))
        return KEEP;
      forget(v.rseg);
      return RELEASE;
    }
    m_others_now+= v.skip;
    if (v.rseg != m_cursor)
      return KEEP;
    if (v.busy && !v.skip)
    {
      /* new transactions keep N_RSEGS - MAX_WIDTH segments, also while
      undo tablespace truncation withholds a whole tablespace */
      if (withheld() >= width || withheld() + others() >= MAX_WIDTH)
        return KEEP;               /* the cursor waits for a free slot */
      if (space.key >= N_RSEGS ||
          m_in_space[space.key] >= space_width(space.rsegs))
      {
        advance();                 /* its tablespace keeps the rest */
        return KEEP;
      }
      m_withheld.set(v.rseg);
      m_space_of[v.rseg]= static_cast<uint8_t>(space.key);
      m_in_space[space.key]++;
      advance();
      return WITHHOLD;
    }
    /* nothing to drain here, or someone else withholds it already */
    advance();
    return KEEP;
  }

  /** @return how many rollback segments are withheld */
  unsigned withheld() const noexcept { return unsigned(m_withheld.count()); }
  /** @return how many others (undo tablespace truncation, the
  skipped_rseg rotation) withhold: the more of the last pass and of this
  one so far */
  unsigned others() const noexcept
  { return std::max(m_others_last, m_others_now); }
  /** @return whether a rollback segment is withheld */
  bool is_withheld(unsigned rseg) const noexcept
  { return rseg < N_RSEGS && m_withheld[rseg]; }
  /** @return the rollback segment that is to be withheld next */
  unsigned cursor() const noexcept { return m_cursor; }
  /** @return how many segments of a tablespace (tablespace::key) are
  withheld */
  unsigned withheld_in(unsigned space) const noexcept
  { return space < N_RSEGS ? m_in_space[space] : 0; }

private:
  void forget(unsigned rseg) noexcept
  {
    m_withheld.reset(rseg);
    m_in_space[m_space_of[rseg]]--;
  }
  void advance() noexcept { m_cursor= (m_cursor + 1) % N_RSEGS; }

  std::bitset<N_RSEGS> m_withheld;
  /** per withheld segment, its tablespace (tablespace::key) */
  uint8_t m_space_of[N_RSEGS]= {};
  /** per tablespace, how many of its segments are withheld */
  uint8_t m_in_space[N_RSEGS]= {};
  /** segments that others withheld in the last pass, and in this one */
  unsigned m_others_last= 0, m_others_now= 0;
  unsigned m_cursor= 0;
};

/** What undo log truncation passes found and what the drain did, for
INNODB_METRICS.  Fed with every visit of a rollback segment, in the order of
the visits (index order within a pass; a visit of an index not above the
previous one starts a new pass), by the one thread that runs truncation. */
class truncation_tally
{
public:
  /** Account for a visit.
  @param v         what the pass found
  @param a         what rseg_drain::visited() decided (KEEP if not asked)
  @param withheld  whether the drain withholds the segment after the visit
  @param now       monotonic clock, microseconds */
  void visited(const rseg_drain::visit &v, rseg_drain::action a,
               bool withheld, uint64_t now) noexcept
  {
    if (v.rseg >= rseg_drain::N_RSEGS)
      return;
    if (m_in_pass && v.rseg <= m_last_rseg)
      end_pass();
    if (!m_in_pass)
    {
      m_in_pass= true;
      m_pass_start= now;
      m_busy= m_referenced= 0;
    }
    m_last_rseg= v.rseg;
    m_pass_end= now;
    m_busy+= v.busy;
    m_referenced+= v.referenced;
    uint64_t &since= m_since[v.rseg];
    if (a == rseg_drain::WITHHOLD)
      since= now | 1;   /* nonzero: withheld since about now */
    else if (since && !withheld)
    {
      if (a == rseg_drain::RELEASE)
      {
        m_released++;
        m_withheld_usec+= now > since ? now - since : 0;
      }
      since= 0;         /* given back, or taken over by tablespace truncation */
    }
  }

  /** @return completed passes */
  uint64_t passes() const noexcept { return m_passes; }
  /** @return microseconds that completed passes took, first visit to last */
  uint64_t pass_usec() const noexcept { return m_pass_usec; }
  /** @return segments that the last completed pass found busy */
  unsigned last_busy() const noexcept { return m_last_busy; }
  /** @return segments that transactions referenced at the last completed
  pass */
  unsigned last_referenced() const noexcept { return m_last_referenced; }
  /** @return segments that the drain gave back after they drained */
  uint64_t released() const noexcept { return m_released; }
  /** @return microseconds that the released segments were withheld */
  uint64_t withheld_usec() const noexcept { return m_withheld_usec; }

private:
  void end_pass() noexcept
  {
    m_in_pass= false;
    m_passes++;
    m_pass_usec+= m_pass_end - m_pass_start;
    m_last_busy= m_busy;
    m_last_referenced= m_referenced;
  }

  bool m_in_pass= false;
  unsigned m_last_rseg= 0;
  uint64_t m_pass_start= 0, m_pass_end= 0;
  unsigned m_busy= 0, m_referenced= 0;
  unsigned m_last_busy= 0, m_last_referenced= 0;
  uint64_t m_passes= 0, m_pass_usec= 0;
  uint64_t m_released= 0, m_withheld_usec= 0;
  /** per segment: when the drain withheld it (|1), 0 if it does not */
  uint64_t m_since[rseg_drain::N_RSEGS]= {};
};

} // namespace purge_throttle

#endif
