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

/**
  @file my_alloc_name.h
  MEM_ROOT names, in debug builds only.

  The name exists only when DBUG_OFF is not defined: release builds keep
  the MEM_ROOT layout and init_alloc_root() as they are, with no store and
  no member on the paths that create a MEM_ROOT for every statement.
  Debug builds name each root after the init_alloc_root() call site, so the
  hundreds of callers need no change, and the DBUG traces of init, alloc and
  free show which root they are about.

  Included from my_sys.h, after the declaration of init_alloc_root().
*/

#ifndef MY_ALLOC_NAME_INCLUDED
#define MY_ALLOC_NAME_INCLUDED

#ifndef DBUG_OFF
#ifdef __cplusplus
extern "C" {
#endif
/** init_alloc_root() that also names the root.
@param name  a string with static storage duration, or NULL */
extern void init_alloc_root_named(PSI_memory_key key, MEM_ROOT *mem_root,
                                  size_t block_size, size_t pre_alloc_size,
                                  myf my_flags, const char *name);
#ifdef __cplusplus
}
#endif

#define MY_ROOT_STRINGIFY_(x) #x
#define MY_ROOT_STRINGIFY(x) MY_ROOT_STRINGIFY_(x)
/** The call site as a string literal: no run-time cost beyond one store */
#define MY_ROOT_CALL_SITE __FILE__ ":" MY_ROOT_STRINGIFY(__LINE__)

#define init_alloc_root(KEY, ROOT, BLOCK, PREALLOC, FLAGS)            \
  init_alloc_root_named(KEY, ROOT, BLOCK, PREALLOC, FLAGS, MY_ROOT_CALL_SITE)

/** @return the name of a root, for diagnostics */
#define my_root_name(ROOT) ((ROOT)->name ? (ROOT)->name : "unnamed")
#endif /* !DBUG_OFF */

#endif /* MY_ALLOC_NAME_INCLUDED */
