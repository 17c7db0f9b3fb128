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

/* MEM_ROOT names in debug builds only: see my_alloc_name.h, and
   my_alloc_name_priv.h for the leak report */

#include "mysys_priv.h"
#include "my_alloc_name_priv.h"
#include <stddef.h>

#ifdef DBUG_OFF
/* Release builds: MEM_ROOT has no name and ends with psi_key, so its
   size is that of the members up to psi_key, rounded to its alignment. */
_Static_assert(sizeof(MEM_ROOT) ==
               MY_ALIGN(offsetof(MEM_ROOT, psi_key) + sizeof(PSI_memory_key),
                        _Alignof(MEM_ROOT)),
               "a release MEM_ROOT keeps the layout without a name");
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

#ifdef SAFEMALLOC
/*
  safemalloc's report of memory leaked at exit shows the stack of each
  block's allocation, which for a root's block is my_alloc.c only; with
  a label it also says "for MEM_ROOT <name>".  The label is copied into
  safemalloc's block header (SF_LABEL_SIZE bytes with the NUL): "MEM_ROOT "
  and the name, or, if that is too long, "MEM_ROOT ..." and the end of the
  name, as the end (file and line) tells the root.
*/
void *my_root_label_block(const MEM_ROOT *root, void *block)
{
  static const char prefix[]= "MEM_ROOT ";
  const size_t room= SF_LABEL_SIZE - sizeof(prefix); /* for the name */
  char label[SF_LABEL_SIZE];
  const char *name= my_root_name(root);
  size_t length;

  if (!block)
    return block;
  length= strlen(name);
  if (length <= room)
    strxnmov(label, sizeof(label) - 1, prefix, name, NullS);
  else
    strxnmov(label, sizeof(label) - 1, prefix, "...",
             name + length - (room - 3), NullS);
  my_malloc_set_label(block, label);
  return block;
}
#endif /* SAFEMALLOC */
#endif
