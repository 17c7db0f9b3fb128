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
innodb_purge_coupled_throttle, included by ha_innodb.cc (the definition
here, the list entry PURGELAB_SYSTEM_VARIABLES in its array).
*******************************************************/

#include "srv0purgelab.h"

static MYSQL_SYSVAR_BOOL(purge_coupled_throttle, innodb_purge_coupled_throttle,
  PLUGIN_VAR_OPCMDARG,
  "Couple the purge lag DML delay to purge (MDEV-29401): a delayed DML thread"
  " wakes the purge coordinator, DML is delayed only while purge can make"
  " progress, and the coordinator does not go idle while throttling."
  " OFF restores the uncoupled behaviour, for comparison",
  NULL, NULL, TRUE);

#define PURGELAB_SYSTEM_VARIABLES                                       \
  MYSQL_SYSVAR(purge_coupled_throttle),
