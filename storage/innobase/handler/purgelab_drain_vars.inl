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
@file handler/purgelab_drain_vars.inl
innodb_purge_drain_rsegs, included by ha_innodb.cc (the definition here,
the list entry PURGELAB_DRAIN_SYSTEM_VARIABLES in its array).
*******************************************************/

#include "srv0purgelab_drain.h"
#include "trx0drain.h"

static MYSQL_SYSVAR_UINT(purge_drain_rsegs, innodb_purge_drain_rsegs,
  PLUGIN_VAR_RQCMDARG,
  "How many rollback segments undo log truncation may withhold from new"
  " transactions at once, so that it can free the history of transactions"
  " that purge has processed while more transactions run than there are"
  " rollback segments. 0 withholds one segment at a time, in turn. The"
  " adaptive throttle withholds up to 64, whatever this says, while its"
  " bound on open transactions is in force, or while the history that"
  " waits for truncation, with what joins it before truncation can free"
  " any (the transactions open, or as much as it last rose after the"
  " drain came in), exceeds its share of innodb_max_purge_lag",
  NULL, NULL, 0, 0, purge_throttle::rseg_drain::MAX_WIDTH, 0);

#define PURGELAB_DRAIN_SYSTEM_VARIABLES                                 \
  MYSQL_SYSVAR(purge_drain_rsegs),
