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
@file include/trx0arm.h
When the adaptive throttle is armed: the server calls InnoDB's wait_point
only while it is (ha_wait_point_want()), and the end of a transaction goes
out of line only while a limit is published too, or while the connection
holds something of the gate's.  No InnoDB state, so that it is unit tested
(unittest/purgelab/arm-t.cc).
*******************************************************/

#ifndef trx0arm_h
#define trx0arm_h

#include "trx0gate.h"
#include <atomic>

namespace purge_throttle
{

/** @return whether the adaptive throttle has a target, the only state in
which it makes connections wait or owe a wait
@param adaptive  innodb_purge_throttle=adaptive
@param lag       innodb_max_purge_lag */
constexpr bool has_target(bool adaptive, uint64_t lag) noexcept
{
  return adaptive && lag != 0;
}

/** Whether InnoDB wants its wait_point called, and whether a commit may
owe a wait.  A change of either is reported once, however often the
settings or the limit are written.  set() and publish() are called with
the throttle's latch held; armed() and limited() are read without it
(relaxed), on the commit path: one load. */
class arming
{
  static constexpr uint8_t TARGET= 1, PUBLISHED= 2;
  std::atomic<uint8_t> m_state{0};

  void store(uint8_t bit, bool on) noexcept
  {
    const uint8_t s= m_state.load(std::memory_order_relaxed);
    m_state.store(on ? uint8_t(s | bit) : uint8_t(s & ~bit),
                  std::memory_order_relaxed);
  }
public:
  /** @param armed  the state wanted (has_target())
  @return whether it changed: then the caller arms or disarms, once */
  bool set(bool armed) noexcept
  {
    if (armed == this->armed())
      return false;
    store(TARGET, armed);
    return true;
  }
  /** Note whether the gate has a rate or a bound published
  (gate::published()), after each change of it. */
  void publish(bool published) noexcept { store(PUBLISHED, published); }

  bool armed() const noexcept
  { return m_state.load(std::memory_order_relaxed) & TARGET; }
  /** @return whether a read-write commit may owe a wait: a target, and a
  limit published.  Without one a commit owes nothing: a limit published
  before the connection's next point where it holds nothing meets its next
  transaction that may write there (point_action::ADMIT). */
  bool limited() const noexcept
  {
    return (m_state.load(std::memory_order_relaxed) & (TARGET | PUBLISHED))
      == (TARGET | PUBLISHED);
  }
};

/** @return whether the end of a connection's transaction must be handled
out of line: it holds a ticket, was let in, or a commit may owe a wait.
Otherwise trx_ended(c, wrote_commit, false) would change nothing.
@param c        the connection's place
@param limited  a commit may owe a wait (arming::limited()) */
inline bool trx_end_acts(const connection &c, bool limited) noexcept
{
  /* bitwise, not ||: one branch on the commit path, not three */
  return c.ticket.held | c.admitted | limited;
}

} // namespace purge_throttle

#endif
