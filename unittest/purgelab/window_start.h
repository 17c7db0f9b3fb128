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

/* The gate tests' way to a concurrency window of a given size: the
window starts from the transactions inside (concurrency_window::start()). */

#ifndef purgelab_window_start_h
#define purgelab_window_start_h

#include "trx0throttle.h"
#include <cmath>
#include <cstdint>

namespace purgelab_test
{
/** @return the transactions inside from which the concurrency window
starts at n: its centre is their square root, its first side that over
1 + DITHER, rounded up */
inline uint64_t inside_for(unsigned n)
{
  uint64_t inside= 1;
  while (std::ceil(std::sqrt(double(inside + 1)) /
                   (1 + purge_throttle::concurrency_window::DITHER)) <= n)
    inside++;
  return inside;
}
} // namespace purgelab_test

#endif
