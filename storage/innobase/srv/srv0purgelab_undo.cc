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
@file srv/srv0purgelab_undo.cc
The redo record of an undo log page's creation (include/srv0purgelab_undo.h).
*******************************************************/

#include "srv0purgelab_undo.h"
#include "trx0undo.h"
#include "mtr0log.h"

my_bool innodb_undo_log_compact_init= TRUE;
Atomic_counter<ulonglong> undo_pages_init_compact;
Atomic_counter<ulonglong> undo_pages_init_generic;
Atomic_counter<ulonglong> recv_undo_init_applied;

void trx_undo_page_init_logged(const buf_block_t &block, mtr_t *mtr)
{
  if (innodb_undo_log_compact_init)
  {
    mtr->undo_create(block);
    trx_undo_page_init(block);
    undo_pages_init_compact++;
    return;
  }
  undo_pages_init_generic++;
  /* Log what trx_undo_page_init() writes with generic records, as MariaDB
  10.3.7 did: the page type and the undo page header.  The rest of the page
  is zero after fsp_init_file_page() (INIT_PAGE) in this mini-transaction, in
  the buffer pool and in recovery alike. */
  trx_undo_page_init(block);
  mtr->write<2,mtr_t::FORCED>(block, FIL_PAGE_TYPE + block.page.frame,
                              FIL_PAGE_UNDO_LOG);
  mtr->memcpy(block, TRX_UNDO_PAGE_HDR, TRX_UNDO_PAGE_HDR_SIZE);
}
