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

/* MEM_ROOT names in debug builds only: see my_alloc_name.h */

#include <my_global.h>
#include <my_sys.h>
#include <stddef.h>

#ifdef DBUG_OFF
/* Release builds: MEM_ROOT ends with psi_key exactly as upstream's, so its
   size is that of the members up to psi_key, rounded to its alignment. */
_Static_assert(sizeof(MEM_ROOT) ==
               MY_ALIGN(offsetof(MEM_ROOT, psi_key) + sizeof(PSI_memory_key),
                        _Alignof(MEM_ROOT)),
               "release MEM_ROOT must keep upstream's layout");
#else
_Static_assert(offsetof(MEM_ROOT, name) >
               offsetof(MEM_ROOT, psi_key), "debug MEM_ROOT carries a name");

/* Binary compatibility: code compiled without my_sys.h's macro (plugins,
   function pointers) still finds init_alloc_root(). */
#undef init_alloc_root
void init_alloc_root(PSI_memory_key key, MEM_ROOT *mem_root,
                     size_t block_size, size_t pre_alloc_size, myf my_flags);
void init_alloc_root(PSI_memory_key key, MEM_ROOT *mem_root,
                     size_t block_size, size_t pre_alloc_size, myf my_flags)
{
  init_alloc_root_named(key, mem_root, block_size, pre_alloc_size, my_flags,
                        NULL);
}
#endif
