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
@file handler/purgelab_undo_vars.inl
innodb_undo_log_compact_init and the undo page initialisation counters,
included by ha_innodb.cc (definitions here, list entries
PURGELAB_UNDO_SYSTEM_VARIABLES and PURGELAB_UNDO_STATUS_VARIABLES in its
arrays).
*******************************************************/

#include "srv0purgelab_undo.h"

static MYSQL_SYSVAR_BOOL(undo_log_compact_init, innodb_undo_log_compact_init,
  PLUGIN_VAR_OPCMDARG,
  "Log the creation of an undo log page with the compact UNDO_INIT redo"
  " record (the old MLOG_UNDO_INIT). OFF logs it with generic write records"
  " instead, for comparison",
  NULL, NULL, TRUE);

#define PURGELAB_UNDO_SYSTEM_VARIABLES                                  \
  MYSQL_SYSVAR(undo_log_compact_init),

/** SHOW STATUS: the undo page initialisations per redo record, and the
UNDO_INIT records that crash recovery applied */
#define PURGELAB_UNDO_STATUS_VARIABLES                                  \
  {"undo_pages_init_compact", &undo_pages_init_compact, SHOW_ULONGLONG}, \
  {"undo_pages_init_generic", &undo_pages_init_generic, SHOW_ULONGLONG}, \
  {"undo_pages_init_compact_recovered", &recv_undo_init_applied,        \
   SHOW_ULONGLONG},
