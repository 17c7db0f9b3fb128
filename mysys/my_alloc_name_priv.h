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
  @file my_alloc_name_priv.h
  MEM_ROOT names in safemalloc's leak report (debug builds), inside mysys.

  my_alloc.c passes every block it gets from my_malloc() for a root through
  my_root_label_block(), so that a leaked block is reported "for MEM_ROOT
  <name>" (see my_alloc_name.c).  Release builds and builds without
  safemalloc get the block back unchanged and compile nothing.
*/

#ifndef MY_ALLOC_NAME_PRIV_INCLUDED
#define MY_ALLOC_NAME_PRIV_INCLUDED

#if !defined(DBUG_OFF) && defined(SAFEMALLOC)
/** Label a block that my_malloc() returned for a root with the root's name.
@param block  the block, or NULL
@return block */
void *my_root_label_block(const MEM_ROOT *root, void *block);
#else
#define my_root_label_block(ROOT, BLOCK) (BLOCK)
#endif

#endif /* MY_ALLOC_NAME_PRIV_INCLUDED */
