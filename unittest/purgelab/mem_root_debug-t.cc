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


/* MEM_ROOT as a debug build sees it: named after the init call site */

#include <my_global.h>
#include <my_sys.h>
#include <cstddef>
#include <cstring>
#include <string>
#include <gtest/gtest.h>

#ifdef DBUG_OFF
# error "this file must be compiled without DBUG_OFF"
#endif

/* Stand-in for mysys: records what the macro passes */
static const char *last_name;
extern "C" void init_alloc_root_named(PSI_memory_key, MEM_ROOT *root, size_t,
                                      size_t, myf, const char *name)
{
  memset(root, 0, sizeof *root);
  root->name= name;
  last_name= name;
}

/* st_mem_root's members without the name, followed by the name that
debug builds add, laid out by this compiler for this target: no size of
any one ABI is assumed. */
struct named_mem_root
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
  const char *name;
};

TEST(MemRootDebug, HasANameAfterPsiKey)
{
  EXPECT_GT(offsetof(MEM_ROOT, name), offsetof(MEM_ROOT, psi_key));
  EXPECT_EQ(offsetof(named_mem_root, name), offsetof(MEM_ROOT, name));
  EXPECT_EQ(sizeof(named_mem_root), sizeof(MEM_ROOT));
}

TEST(MemRootDebug, InitAllocRootNamesTheRootAfterItsCallSite)
{
  MEM_ROOT root;
  const int line= __LINE__ + 1;
  init_alloc_root(PSI_NOT_INSTRUMENTED, &root, 1024, 0, MYF(0));
  ASSERT_NE(nullptr, last_name);
  const std::string name(my_root_name(&root));
  const std::string want= "mem_root_debug-t.cc:" + std::to_string(line);
  ASSERT_GE(name.size(), want.size());
  EXPECT_EQ(want, name.substr(name.size() - want.size())) << name;
}

TEST(MemRootDebug, UnnamedRootsAreReportedAsSuch)
{
  MEM_ROOT root;
  memset(&root, 0, sizeof root);
  EXPECT_STREQ("unnamed", my_root_name(&root));
}
