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
@file handler/purgelab_wait_point.inl
InnoDB's handlerton::wait_point, at which the adaptive purge throttle makes
a connection wait, and the start and stop of the throttle; included by
ha_innodb.cc after handler/purgelab_adaptive_vars.inl.
*******************************************************/

extern "C" bool thd_is_slave(const MYSQL_THD thd);
static trx_t *thd_to_trx(THD *thd);
static trx_t *check_trx_exists(THD *thd);

/** handlerton::wait_point: the connection is at a point where it holds no
transaction, no table locks and no metadata locks (before a statement,
after a command, before a replicated event group); it may wait there at the
adaptive throttle's gate.  The server calls it only while InnoDB wants it,
that is while the adaptive throttle has a target (purge_throttle_armed).
Nothing else needs it: innodb_purge_throttle_replica and the debug keywords
purge_throttle_must_wait, _must_admit, _take_ticket and _wait_unbounded act
only with a target (the tests that set them set one), so debug builds do
not arm it for them.
@param thd        the connection
@param may_write  it is about to run a statement, or apply an event group,
                  that may start a read-write transaction */
static void purgelab_wait_point(handlerton *, THD *thd, bool may_write)
{
  purge_throttle_adaptive_stats.wait_points.inc();
  /* a call that raced with disarming */
  if (innodb_purge_throttle != PURGE_THROTTLE_ADAPTIVE || !srv_max_purge_lag)
    return;
  trx_t *trx= thd_to_trx(thd);
  /* InnoDB's transaction has not started: no read view, no locks, nothing
  that purge or another connection waits for */
  if (trx && trx->state != TRX_STATE_NOT_STARTED)
    return;
  if (!purge_throttle_point_waits(trx ? &trx->throttle : nullptr, may_write))
    return;
  /* replica appliers go through unless innodb_purge_throttle_replica; a
  waiting one polls whether it was asked to stop (STOP SLAVE, shutdown),
  which signals nothing and sets no kill level */
  const bool replica= thd_is_slave(thd);
  if (replica && !innodb_purge_throttle_replica)
  {
    /* an applier that the throttle does not hold owes no wait and keeps
    no ticket: its commits noted one (purge_throttle_trx_ended()) */
    if (trx)
      purge_throttle_connection_end(trx->throttle);
    return;
  }
  /* a connection's first transaction: its place at the gate, and
  innobase_kill_query() for it, need its trx_t */
  if (!trx)
    trx= check_trx_exists(thd);
  purge_throttle_wait_point(thd, trx->throttle, may_write,
                            replica ? ha_wait_point_abort : nullptr);
}

/** Start the adaptive throttle (innodb_init(), before srv_start()): its latch,
and the handlerton's wait_point, at which a connection meets the gate,
armed if the startup settings give a target */
static void purgelab_init()
{
  innodb_hton_ptr->wait_point= purgelab_wait_point;
  purge_throttle_init();
}

/** Stop it and disarm the wait_point (InnoDB shutdown, once no connection
and no purge runs, or a failed startup) */
static void purgelab_deinit()
{
  purge_throttle_deinit();
}

/** Update innodb_max_purge_lag: let every waiting connection in */
static void purgelab_update_max_purge_lag(THD *thd, st_mysql_sys_var *sv,
                                          void *var, const void *save)
{
  purgelab_update_throttle<ulong>(thd, sv, var, save);
}
