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
out of line only while it is, or while the connection holds something of
the gate's.  No InnoDB state, so that it is unit tested
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

/** Whether InnoDB wants its wait_point called.  A change is reported
once, however often the settings are written.  set() is called with the
throttle's latch held; armed() is read without it (relaxed), on the commit
path. */
class arming
{
  std::atomic<bool> m_armed{false};
public:
  /** @param armed  the state wanted (has_target())
  @return whether it changed: then the caller arms or disarms, once */
  bool set(bool armed) noexcept
  {
    if (armed == m_armed.load(std::memory_order_relaxed))
      return false;
    m_armed.store(armed, std::memory_order_relaxed);
    return true;
  }
  bool armed() const noexcept
  { return m_armed.load(std::memory_order_relaxed); }
};

/** @return whether the end of a connection's transaction must be handled
out of line: it holds a ticket, was let in, or the throttle is armed.
Otherwise trx_ended(c, wrote_commit, false) would change nothing.
@param c      the connection's place
@param armed  the throttle is armed (has a target) */
inline bool trx_end_acts(const connection &c, bool armed) noexcept
{
  /* bitwise, not ||: one branch on the commit path, not three */
  return c.ticket.held | c.admitted | armed;
}

} // namespace purge_throttle

#endif
