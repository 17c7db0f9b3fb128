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
@file handler/purgelab_vars.inl
The fork's system and status variables, included by ha_innodb.cc
(definitions here, list entries PURGELAB_SYSTEM_VARIABLES and
PURGELAB_STATUS_VARIABLES in its arrays).
*******************************************************/

#include "srv0purgelab.h"

static MYSQL_SYSVAR_BOOL(purge_coupled_throttle, innodb_purge_coupled_throttle,
  PLUGIN_VAR_OPCMDARG,
  "Couple the purge lag DML delay to purge (MDEV-29401): a delayed DML thread"
  " wakes the purge coordinator, DML is delayed only while purge can make"
  " progress, and the coordinator does not go idle while throttling."
  " OFF restores the uncoupled behaviour, for comparison",
  NULL, NULL, TRUE);

static MYSQL_SYSVAR_BOOL(undo_log_compact_init, innodb_undo_log_compact_init,
  PLUGIN_VAR_OPCMDARG,
  "Log the creation of an undo log page with the compact UNDO_INIT redo"
  " record (the old MLOG_UNDO_INIT). OFF logs it with generic write records"
  " instead, for comparison",
  NULL, NULL, TRUE);

#define PURGELAB_SYSTEM_VARIABLES                                       \
  MYSQL_SYSVAR(purge_coupled_throttle),                                 \
  MYSQL_SYSVAR(undo_log_compact_init),

/** SHOW STATUS: whether DML is being delayed now */
static int show_purge_throttle_active(THD *, SHOW_VAR *var, void *buff,
                                      system_status_var *, enum_var_type)
{
  var->type= SHOW_BOOL;
  var->value= buff;
  *static_cast<bool*>(buff)= srv_dml_needed_delay != 0;
  return 0;
}

#define PURGELAB_STATUS_VARIABLES                                       \
  {"purge_dml_delay_current_usec", &srv_dml_needed_delay, SHOW_SIZE_T}, \
  {"purge_dml_delayed_rows", &purge_throttle_stats.delayed_rows,        \
   SHOW_ULONGLONG},                                                     \
  {"purge_dml_delay_total_usec", &purge_throttle_stats.delayed_usec,    \
   SHOW_ULONGLONG},                                                     \
  {"purge_dml_wakeups", &purge_throttle_stats.dml_wakeups, SHOW_ULONGLONG}, \
  {"purge_throttle_active", (char*) &show_purge_throttle_active,        \
   SHOW_SIMPLE_FUNC},
