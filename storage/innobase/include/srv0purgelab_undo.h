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
@file include/srv0purgelab_undo.h
innodb_undo_log_compact_init: the redo record that logs the creation of an
undo log page (the compact UNDO_INIT, or generic writes), and the counters
of each record written and of UNDO_INIT records applied by recovery.
*******************************************************/

#ifndef srv0purgelab_undo_h
#define srv0purgelab_undo_h

#include "univ.i"
#include "my_counter.h"

struct buf_block_t;
struct mtr_t;

/** innodb_undo_log_compact_init: log the creation of an undo page with the
compact UNDO_INIT record (default ON), or with generic writes (OFF) */
extern my_bool innodb_undo_log_compact_init;

/** Undo log pages initialised since startup, by the redo record written:
UNDO_INIT (innodb_undo_log_compact_init=ON) or generic writes (OFF); each
trx_undo_page_init_logged() adds one to exactly one of them */
extern Atomic_counter<ulonglong> undo_pages_init_compact;
extern Atomic_counter<ulonglong> undo_pages_init_generic;
/** UNDO_INIT records that crash recovery applied since startup (counted
in log0recv.cc; a record skipped because the page on disk was newer is not
counted) */
extern Atomic_counter<ulonglong> recv_undo_init_applied;

/** Initialize a freshly allocated undo log page and write its redo log,
either as one UNDO_INIT record or as generic writes.
@param block  undo log page, just initialized by fsp_init_file_page()
@param mtr    mini-transaction */
void trx_undo_page_init_logged(const buf_block_t &block, mtr_t *mtr);

#endif
