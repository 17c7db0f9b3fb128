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
@file handler/purgelab_adaptive_vars.inl
The adaptive purge throttle's system and status variables, included by
ha_innodb.cc (definitions here, list entries
PURGELAB_ADAPTIVE_SYSTEM_VARIABLES and PURGELAB_ADAPTIVE_STATUS_VARIABLES
in its arrays).
*******************************************************/

#include "srv0purgelab_adaptive.h"
#include "trx0trx.h"

extern handlerton *innodb_hton_ptr;

void innobase_wait_point_want(bool want) noexcept
{
  ha_wait_point_want(innodb_hton_ptr, want);
}

/** Update innodb_purge_throttle, innodb_max_purge_lag or
innodb_purge_throttle_replica: let every waiting connection in, and arm
InnoDB's wait_point while the adaptive throttle has a target */
template<typename T>
static void purgelab_update_throttle(THD *, st_mysql_sys_var *, void *var,
                                     const void *save)
{
  *static_cast<T*>(var)= *static_cast<const T*>(save);
  purge_throttle_mode_changed();
}

static const char *purge_throttle_names[]= {"formula", "adaptive", NullS};
static TYPELIB purge_throttle_typelib= {
  array_elements(purge_throttle_names) - 1, "purge_throttle_typelib",
  purge_throttle_names, NULL
};

static MYSQL_SYSVAR_ENUM(purge_throttle, innodb_purge_throttle,
  PLUGIN_VAR_RQCMDARG,
  "How DML is delayed when the purge lags behind innodb_max_purge_lag:"
  " formula (a per-row delay growing with the history length,"
  " capped by innodb_max_purge_lag_delay) or adaptive (a feedback controller"
  " that holds the history near innodb_max_purge_lag by limiting the rate"
  " of read-write transactions: a connection waits for its turn where it"
  " holds no locks and no read view, before a statement that changes data"
  " or, if it held something then, after its commit; the wait lasts as"
  " long as the queue ahead of it takes at the limit, without a fixed"
  " bound, and ends at once on KILL, a change of this variable,"
  " innodb_max_purge_lag or innodb_purge_throttle_replica, at shutdown,"
  " or when nobody was let in for 1 second; ignoring"
  " innodb_max_purge_lag_delay and never while purge cannot progress)."
  " Either acts only while innodb_max_purge_lag is set",
  NULL, purgelab_update_throttle<ulong>, PURGE_THROTTLE_ADAPTIVE,
  &purge_throttle_typelib);

static MYSQL_SYSVAR_BOOL(purge_throttle_replica, innodb_purge_throttle_replica,
  PLUGIN_VAR_OPCMDARG,
  "Whether innodb_purge_throttle=adaptive also holds replica appliers (the"
  " replica SQL thread and parallel workers), before each event group. OFF"
  " (default): a lagging replica catches up at full speed and its history"
  " may exceed innodb_max_purge_lag meanwhile; ON: the history is held at"
  " innodb_max_purge_lag and replication may lag instead",
  NULL, purgelab_update_throttle<my_bool>, FALSE);

#define PURGELAB_ADAPTIVE_SYSTEM_VARIABLES                              \
  MYSQL_SYSVAR(purge_throttle),                                         \
  MYSQL_SYSVAR(purge_throttle_replica),

/** SHOW STATUS of a value that a function computes when it is read
@tparam T      the value's type
@tparam type   its SHOW_VAR type
@tparam value  the function */
template<typename T, enum_mysql_show_type type, T (*value)()>
static int show_computed(THD *, SHOW_VAR *var, void *buff,
                         system_status_var *, enum_var_type)
{
  var->type= type;
  var->value= buff;
  *static_cast<T*>(buff)= value();
  return 0;
}

/** @return whether DML is being delayed now, by either throttle */
static bool purge_throttle_active() noexcept
{
  return srv_dml_needed_delay || purge_throttle_commit_limit_in_force() ||
    purge_throttle_concurrency_in_force();
}

/** SHOW STATUS: what an operator reads (the purge_throttle module of
INNODB_METRICS has the throttle's internal counters, srv0purgelab_mon.h) */
#define PURGELAB_ADAPTIVE_STATUS_VARIABLES                              \
  /* the history: not parsed by purge yet, of that what the oldest read \
  view keeps purge from parsing, and parsed but not freed by undo log   \
  truncation yet */                                                     \
  {"purge_unparsed_trx", (char*) &show_computed<ulonglong, SHOW_ULONGLONG, \
   purge_unparsed_trx>, SHOW_SIMPLE_FUNC},                              \
  {"purge_view_blocked_trx", (char*) &show_computed<ulonglong,          \
   SHOW_ULONGLONG, purge_view_blocked_trx>, SHOW_SIMPLE_FUNC},          \
  {"purge_truncation_pending_trx", (char*) &show_computed<ulonglong,    \
   SHOW_ULONGLONG, purge_truncation_pending_trx>, SHOW_SIMPLE_FUNC},    \
  /* either throttle delays DML now */                                  \
  {"purge_throttle_active", (char*) &show_computed<bool, SHOW_BOOL,     \
   purge_throttle_active>, SHOW_SIMPLE_FUNC},                           \
  /* adaptive: the commit rate limit, the connections admitted at once  \
  and waiting, and purge's measured rate */                             \
  {"purge_throttle_commit_limit", (char*) &show_computed<ulonglong,     \
   SHOW_ULONGLONG, purge_throttle_commit_limit_in_force>,               \
   SHOW_SIMPLE_FUNC},                                                   \
  {"purge_throttle_concurrency", (char*) &show_computed<uint, SHOW_UINT, \
   purge_throttle_concurrency_in_force>, SHOW_SIMPLE_FUNC},             \
  {"purge_throttle_waiting", (char*) &show_computed<uint, SHOW_UINT,    \
   purge_throttle_gate_waiting>, SHOW_SIMPLE_FUNC},                     \
  {"purge_throttle_purge_rate", &purge_throttle_adaptive_stats.purge_rate, \
   SHOW_ULONGLONG},
