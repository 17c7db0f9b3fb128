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


/* MEM_ROOT as a release build (DBUG_OFF) sees it: the layout without a
name */

#include <my_global.h>
#include <my_sys.h>
#include <cstddef>
#include <type_traits>
#include <gtest/gtest.h>

#ifndef DBUG_OFF
# error "this file must be compiled with DBUG_OFF"
#endif

/* st_mem_root as include/my_alloc.h declares it without the debug-only
name: the same members in the same order.  Compiled by the same compiler
for the same target, so that the comparison holds on any ABI. */
struct upstream_mem_root
{
  USED_MEM *free;
  USED_MEM *used;
  USED_MEM *pre_alloc;
  size_t min_malloc;
  size_t block_size;
  unsigned int block_num;
  unsigned short first_block_usage;
  unsigned short flags;
  void (*error_handler)(void);
  PSI_memory_key psi_key;
};

template <typename T, typename = void>
struct has_name_member : std::false_type {};
template <typename T>
struct has_name_member<T, decltype(void(&T::name))> : std::true_type {};

TEST(MemRootRelease, HasNoNameMember)
{
  EXPECT_FALSE(has_name_member<MEM_ROOT>::value);
}

TEST(MemRootRelease, EndsWithPsiKeyAsUpstream)
{
  EXPECT_EQ(sizeof(MEM_ROOT),
            MY_ALIGN(offsetof(MEM_ROOT, psi_key) + sizeof(PSI_memory_key),
                     alignof(MEM_ROOT)));
}

TEST(MemRootRelease, LayoutIsUpstreams)
{
  EXPECT_EQ(sizeof(upstream_mem_root), sizeof(MEM_ROOT));
  EXPECT_EQ(alignof(upstream_mem_root), alignof(MEM_ROOT));
#define SAME_OFFSET(m) \
  EXPECT_EQ(offsetof(upstream_mem_root, m), offsetof(MEM_ROOT, m)) << #m
  SAME_OFFSET(free);
  SAME_OFFSET(used);
  SAME_OFFSET(pre_alloc);
  SAME_OFFSET(min_malloc);
  SAME_OFFSET(block_size);
  SAME_OFFSET(block_num);
  SAME_OFFSET(first_block_usage);
  SAME_OFFSET(flags);
  SAME_OFFSET(error_handler);
  SAME_OFFSET(psi_key);
#undef SAME_OFFSET
}

TEST(MemRootRelease, InitAllocRootIsThePlainFunction)
{
#ifdef init_alloc_root
  FAIL() << "init_alloc_root must not be a macro in release builds";
#endif
#ifdef my_root_name
  FAIL() << "my_root_name must not exist in release builds";
#endif
  /* the plain signature, no extra argument */
  const bool upstream_signature=
    std::is_same<decltype(&init_alloc_root),
                 void (*)(PSI_memory_key, MEM_ROOT *, size_t, size_t, myf)>::value;
  EXPECT_TRUE(upstream_signature);
}
