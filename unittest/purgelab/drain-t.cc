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


/* Unit tests of the rollback segment drain (trx0drain.h): its decisions,
and a simulation of undo log truncation under more concurrent writers than
there are rollback segments. */

#include "trx0drain.h"
#include <gtest/gtest.h>
#include <vector>

using namespace purge_throttle;

namespace
{
constexpr unsigned N= rseg_drain::N_RSEGS;

rseg_drain::visit busy_at(unsigned rseg)
{ return {rseg, true, true, false, false}; }

rseg_drain::visit clean_at(unsigned rseg)
{ return {rseg, false, false, false, false}; }
}

TEST(RsegDrain, WithholdsNothingAtWidthZero)
{
  rseg_drain d;
  for (unsigned i= 0; i < N; i++)
    EXPECT_EQ(rseg_drain::KEEP, d.visited(busy_at(i), 0));
  EXPECT_EQ(0u, d.withheld());
  EXPECT_EQ(0u, d.cursor());
}

TEST(RsegDrain, WithholdsBusySegmentsFromTheCursorUpToTheWidth)
{
  rseg_drain d;
  EXPECT_EQ(rseg_drain::KEEP, d.visited(clean_at(0), 3));  /* nothing to do */
  EXPECT_EQ(rseg_drain::WITHHOLD, d.visited(busy_at(1), 3));
  EXPECT_EQ(rseg_drain::WITHHOLD, d.visited(busy_at(2), 3));
  EXPECT_EQ(rseg_drain::WITHHOLD, d.visited(busy_at(3), 3));
  EXPECT_EQ(rseg_drain::KEEP, d.visited(busy_at(4), 3));   /* full */
  EXPECT_EQ(3u, d.withheld());
  EXPECT_EQ(4u, d.cursor());                                /* waits at 4 */
  EXPECT_EQ(rseg_drain::KEEP, d.visited(busy_at(5), 3));   /* not its turn */
  EXPECT_FALSE(d.is_withheld(5));
}

TEST(RsegDrain, LeavesSegmentsThatOthersWithhold)
{
  rseg_drain d;
  /* purge_sys.skipped_rseg's rotation, or undo tablespace truncation */
  EXPECT_EQ(rseg_drain::KEEP, d.visited({0, true, true, true, false}, 4));
  EXPECT_EQ(0u, d.withheld());
  EXPECT_EQ(1u, d.cursor());
}

TEST(RsegDrain, GivesBackOnlyDrainedUnreferencedSegments)
{
  rseg_drain d;
  ASSERT_EQ(rseg_drain::WITHHOLD, d.visited(busy_at(0), 2));
  /* its transactions have not finished yet */
  EXPECT_EQ(rseg_drain::KEEP, d.visited({0, true, true, true, false}, 2));
  /* unreferenced, but the purge view does not see its last commit yet */
  EXPECT_EQ(rseg_drain::KEEP, d.visited({0, true, false, true, false}, 2));
  /* not busy, but a reference acquired before it was withheld remains */
  EXPECT_EQ(rseg_drain::KEEP, d.visited({0, false, true, true, false}, 2));
  EXPECT_TRUE(d.is_withheld(0));
  /* drained and unreferenced */
  EXPECT_EQ(rseg_drain::RELEASE, d.visited({0, false, false, true, false}, 2));
  EXPECT_EQ(0u, d.withheld());
}

TEST(RsegDrain, NarrowedWidthGivesBackAsSoonAsUnreferenced)
{
  rseg_drain d;
  ASSERT_EQ(rseg_drain::WITHHOLD, d.visited(busy_at(0), 2));
  ASSERT_EQ(rseg_drain::WITHHOLD, d.visited(busy_at(1), 2));
  /* SET GLOBAL innodb_purge_drain_rsegs=0 */
  EXPECT_EQ(rseg_drain::KEEP, d.visited({0, true, true, true, false}, 0));
  EXPECT_EQ(rseg_drain::RELEASE, d.visited({0, true, false, true, false}, 0));
  EXPECT_EQ(rseg_drain::RELEASE, d.visited({1, true, false, true, false}, 0));
  EXPECT_EQ(0u, d.withheld());
}

TEST(RsegDrain, ForgetsSegmentsThatTablespaceTruncationTakesOver)
{
  rseg_drain d;
  ASSERT_EQ(rseg_drain::WITHHOLD, d.visited(busy_at(0), 2));
  ASSERT_EQ(rseg_drain::WITHHOLD, d.visited(busy_at(1), 2));
  /* rseg 0: the truncation of its tablespace now owns the flag */
  EXPECT_EQ(rseg_drain::KEEP, d.visited({0, false, false, true, true}, 2));
  /* rseg 1: trx_rseg_t::reinit() cleared the flag */
  EXPECT_EQ(rseg_drain::KEEP, d.visited({1, false, false, false, false}, 2));
  EXPECT_EQ(0u, d.withheld());
  EXPECT_FALSE(d.is_withheld(0));
  EXPECT_FALSE(d.is_withheld(1));
}

/* Undo tablespace truncation withholds a whole tablespace (here the even
segments, half of them) for many passes while every segment is busy: the
drain at its widest still leaves new transactions N_RSEGS - MAX_WIDTH
segments, counting what truncation withholds, and gives back what it held
beyond that once truncation takes more. */
TEST(RsegDrain, LeavesSegmentsWhileATablespaceIsTruncated)
{
  const unsigned W= rseg_drain::MAX_WIDTH;
  rseg_drain d;
  std::vector<bool> ours(N);
  auto pass= [&](bool truncating)
  {
    for (unsigned i= 0; i < N; i++)
    {
      const bool trunc= truncating && i % 2 == 0;
      const bool skip= trunc || d.is_withheld(i);
      switch (d.visited({i, true, false, skip, trunc}, W)) {
      case rseg_drain::WITHHOLD: ours[i]= true; break;
      case rseg_drain::RELEASE: ours[i]= false; break;
      case rseg_drain::KEEP: ours[i]= d.is_withheld(i); break;
      }
    }
    unsigned free_segments= 0;
    for (unsigned i= 0; i < N; i++)
      free_segments+= !(truncating && i % 2 == 0) && !d.is_withheld(i);
    return free_segments;
  };
  /* without truncation the drain may take up to MAX_WIDTH */
  for (int p= 0; p < 4; p++)
    EXPECT_GE(pass(false), N - W) << p;
  EXPECT_EQ(W, d.withheld());
  /* truncation starts and holds half the segments for 20 passes */
  for (int p= 0; p < 20; p++)
    EXPECT_GE(pass(true), p ? N - W : 1u) << p;
  EXPECT_LE(d.withheld() + N / 2, W);
}

/* Undo tablespace truncation withholds all segments of a tablespace at
once, between two passes, whatever the drain holds in the others: the
drain never holds more than MAX_WIDTH's share of any one tablespace, so
that new transactions find a segment at every moment.  Here one
tablespace (the odd segments) holds all the busy history, as it does
right after the other was truncated, and then the other (the even ones)
starts to be truncated. */
TEST(RsegDrain, EveryTablespaceKeepsSegmentsWhenAnotherIsTruncated)
{
  const unsigned W= rseg_drain::MAX_WIDTH;
  rseg_drain d;
  for (int p= 0; p < 4; p++)
    for (unsigned i= 0; i < N; i++)
      d.visited({i, i % 2 == 1, i % 2 == 1, d.is_withheld(i), false}, W,
                {i % 2, N / 2});
  EXPECT_EQ(rseg_drain::space_width(N / 2), d.withheld());
  EXPECT_EQ(d.withheld(), d.withheld_in(1));
  EXPECT_EQ(0u, d.withheld_in(0));
  /* truncation takes every even segment: the odd ones not withheld are
  what new transactions find until the next pass */
  unsigned free_segments= 0;
  for (unsigned i= 1; i < N; i+= 2)
    free_segments+= !d.is_withheld(i);
  EXPECT_GE(free_segments, N / 2 / 4);
  EXPECT_EQ(N / 2 - rseg_drain::space_width(N / 2), free_segments);
}

namespace
{
/** one pass over all segments at times start, start+1, ...; busy and
referenced as given; the drain left alone */
void tally_pass(truncation_tally &t, uint64_t start, bool busy, bool referenced)
{
  for (unsigned i= 0; i < N; i++)
    t.visited({i, busy, referenced, false, false}, rseg_drain::KEEP, false,
              start + i);
}
}

TEST(TruncationTally, CountsAPassOnceTheNextOneStarts)
{
  truncation_tally t;
  tally_pass(t, 1000, true, true);
  EXPECT_EQ(0u, t.passes());          /* it may still go on */
  tally_pass(t, 2000, false, true);
  EXPECT_EQ(1u, t.passes());
  EXPECT_EQ(N - 1, t.pass_usec());    /* first visit to last */
  EXPECT_EQ(N, t.last_busy());
  EXPECT_EQ(N, t.last_referenced());
  t.visited({0, false, false, false, false}, rseg_drain::KEEP, false, 3000);
  EXPECT_EQ(2u, t.passes());
  EXPECT_EQ(2 * (N - 1), t.pass_usec());
  EXPECT_EQ(0u, t.last_busy());       /* what the second pass found */
  EXPECT_EQ(N, t.last_referenced());
}

TEST(TruncationTally, APassCutShortEndsAtTheNextVisitOfALowerSegment)
{
  /* free_history() stops at an error: the next pass starts at segment 0 */
  truncation_tally t;
  for (unsigned i= 0; i < 10; i++)
    t.visited(busy_at(i), rseg_drain::KEEP, false, 100 + i);
  t.visited(busy_at(0), rseg_drain::KEEP, false, 500);
  EXPECT_EQ(1u, t.passes());
  EXPECT_EQ(9u, t.pass_usec());
  EXPECT_EQ(10u, t.last_busy());
  /* a segment index out of range is ignored */
  t.visited(busy_at(N), rseg_drain::KEEP, false, 600);
  t.visited(busy_at(1), rseg_drain::KEEP, false, 700);
  EXPECT_EQ(1u, t.passes());
}

TEST(TruncationTally, TimesSegmentsFromWithholdingToGivingBack)
{
  rseg_drain d;
  truncation_tally t;
  auto visit= [&](rseg_drain::visit v, uint64_t now)
  {
    const rseg_drain::action a= d.visited(v, 4);
    t.visited(v, a, d.is_withheld(v.rseg), now);
    return a;
  };
  ASSERT_EQ(rseg_drain::WITHHOLD, visit(busy_at(0), 1000));
  ASSERT_EQ(rseg_drain::WITHHOLD, visit(busy_at(1), 1001));
  /* still referenced: kept, not timed */
  ASSERT_EQ(rseg_drain::KEEP,
            visit({0, true, true, true, false}, 3000));
  EXPECT_EQ(0u, t.released());
  /* drained and unreferenced: given back after about 4 ms */
  ASSERT_EQ(rseg_drain::RELEASE,
            visit({0, false, false, true, false}, 5000));
  EXPECT_EQ(1u, t.released());
  EXPECT_NEAR(4000.0, double(t.withheld_usec()), 1.0);
  /* taken over by undo tablespace truncation: not counted as given back */
  ASSERT_EQ(rseg_drain::KEEP,
            visit({1, false, false, true, true}, 9000));
  EXPECT_FALSE(d.is_withheld(1));
  EXPECT_EQ(1u, t.released());
  EXPECT_NEAR(4000.0, double(t.withheld_usec()), 1.0);
  /* withheld again later: timed from then on */
  ASSERT_EQ(rseg_drain::WITHHOLD, visit(busy_at(2), 10000));
  ASSERT_EQ(rseg_drain::RELEASE,
            visit({2, false, false, true, false}, 10500));
  EXPECT_EQ(2u, t.released());
  EXPECT_NEAR(4500.0, double(t.withheld_usec()), 2.0);
}

namespace
{
/** A model of the rollback segments under a write load: W writers, each
with one open transaction at a time that lasts TRX_TICKS ticks. A
transaction takes the next rollback segment in turn that is not withheld
(trx_assign_rseg_low()), and at commit adds one undo log to its history,
which purge processes at once. Every PASS_TICKS ticks undo log truncation
visits each segment in order and frees its history unless transactions
reference it. */
struct truncation_model
{
  struct rseg { unsigned refs= 0; uint64_t history= 0; bool skip= false; };
  struct writer { unsigned rseg; unsigned ends; };

  unsigned width;
  std::vector<rseg> rsegs= std::vector<rseg>(N);
  std::vector<writer> writers;
  rseg_drain drain;
  unsigned next_slot= 0;
  unsigned tick= 0;
  /* purge_sys.skipped_rseg's rule, for width 0: one segment at a time */
  unsigned skipped= 0;
  /* what the model observed */
  uint64_t history_sum= 0, samples= 0;
  unsigned max_withheld= 0;
  bool released_referenced= false;
  std::vector<unsigned> withheld_times= std::vector<unsigned>(N);

  truncation_model(unsigned width, unsigned n_writers) : width(width)
  {
    for (unsigned w= 0; w < n_writers; w++)
      writers.push_back({take(), 1 + w % TRX_TICKS});
  }

  static constexpr unsigned TRX_TICKS= 4;
  static constexpr unsigned PASS_TICKS= 3;

  unsigned take()
  {
    for (;;)
    {
      rseg &r= rsegs[next_slot];
      const unsigned i= next_slot;
      next_slot= (next_slot + 1) % N;
      if (!r.skip)
      {
        r.refs++;
        return i;
      }
    }
  }

  uint64_t history() const
  {
    uint64_t h= 0;
    for (const rseg &r : rsegs)
      h+= r.history;
    return h;
  }

  void pass()
  {
    for (unsigned i= 0; i < N; i++)
    {
      rseg &r= rsegs[i];
      bool busy= false;
      bool freed= false;
      if (r.history)
      {
        if (r.refs)
          busy= true;
        else
        {
          r.history= 0;
          freed= true;
        }
      }
      if (!width && !drain.withheld())
      {
        /* purge_sys.skipped_rseg and rseg_enable() */
        if (busy && !freed && !r.skip && i == skipped)
          r.skip= true;
        else if (freed && r.skip && i == skipped)
        {
          r.skip= false;
          skipped= (skipped + 1) % N;
        }
        continue;
      }
      switch (drain.visited({i, busy, r.refs != 0, r.skip, false}, width)) {
      case rseg_drain::KEEP:
        break;
      case rseg_drain::WITHHOLD:
        r.skip= true;
        withheld_times[i]++;
        break;
      case rseg_drain::RELEASE:
        if (r.refs)
          released_referenced= true;
        r.skip= false;
        break;
      }
      max_withheld= std::max(max_withheld, drain.withheld());
    }
  }

  void run(unsigned ticks)
  {
    for (unsigned end= tick + ticks; tick < end; tick++)
    {
      for (writer &w : writers)
        if (w.ends == tick)
        {
          rseg &r= rsegs[w.rseg];
          r.refs--;
          r.history++;
          w.rseg= take();
          w.ends= tick + TRX_TICKS;
        }
      if (tick % PASS_TICKS == 0)
        pass();
      history_sum+= history();
      samples++;
    }
  }

  double mean_history() const { return double(history_sum) / double(samples); }
};
}

TEST(RsegDrainModel, FewWritersNeedNoDrain)
{
  /* 32 writers leave most segments unreferenced at any pass */
  truncation_model m(0, 32);
  m.run(3000);
  EXPECT_LT(m.mean_history(), 100.0);
}

TEST(RsegDrainModel, WideDrainKeepsUpWhereUpstreamsRotationCannot)
{
  /* 256 writers: every segment is referenced at every pass */
  truncation_model upstream(0, 256);
  upstream.run(6000);
  truncation_model drain1(1, 256);
  drain1.run(6000);
  truncation_model drain16(16, 256);
  drain16.run(6000);

  /* 64 commits per tick; the rotation frees one segment per two passes, so a
  segment piles up about 256 passes = 768 ticks of its 1/128 share of the
  commits: a mean of about 64 * 768 / 2 = 24,576 */
  EXPECT_GT(upstream.mean_history(), 15000.0);
  /* one segment at a time is the same rotation */
  EXPECT_GT(drain1.mean_history(), 0.8 * upstream.mean_history());
  /* sixteen at a time frees every segment 16 times as often */
  EXPECT_LT(drain16.mean_history(), upstream.mean_history() / 8);

  EXPECT_LE(drain16.max_withheld, 16u);
  EXPECT_FALSE(drain16.released_referenced);
  EXPECT_FALSE(drain1.released_referenced);
  /* every segment took its turn */
  for (unsigned i= 0; i < N; i++)
    EXPECT_GT(drain16.withheld_times[i], 0u) << "rseg " << i;
}

TEST(RsegDrainModel, DrainHandsEverySegmentBackWhenSwitchedOff)
{
  truncation_model m(16, 256);
  m.run(600);
  for (unsigned i= 0; i < 100 && !m.drain.withheld(); i++)
    m.run(1);
  ASSERT_GT(m.drain.withheld(), 0u);
  m.width= 0;
  m.run(30);
  EXPECT_EQ(0u, m.drain.withheld());
  /* only the rotation's one segment may be withheld now */
  for (unsigned i= 0; i < N; i++)
    EXPECT_TRUE(!m.rsegs[i].skip || i == m.skipped) << "rseg " << i;
  EXPECT_FALSE(m.released_referenced);
}
