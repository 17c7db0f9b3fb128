-- Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
--
-- The Insert Benchmark's steps (Mark Callaghan's benchmark) as a sysbench 1.0
-- script, written for purgelab from the benchmark's published description;
-- no code of the original is used. tools/purgebench/insertbench.py plans the
-- steps, builds the command lines and parses what this script prints.
--
--   sysbench insert_benchmark.lua --table_size=N [options] prepare
--       creates the table (no rows, no secondary indexes)
--   sysbench insert_benchmark.lua --ib_step=STEP [options] run
--       load   l.i0  insert table_size rows in primary-key order
--       index  l.x   create the 3 secondary indexes (one ALTER, thread 0)
--       churn  l.i1, l.i2  inserts in PK order, and deletes of the oldest rows
--                    at the same rate, ib_rows_per_commit rows per commit
--       query  qr*, qp*  threads 0..ib_writers-1 insert and delete at
--                    ib_writer_rate rows per second each; the other threads
--                    run range (ib_query=range) or point (point) queries as
--                    fast as they can
--   sysbench insert_benchmark.lua cleanup      drops the table
--
-- The table (the benchmark's columns and index names):
--   transactionid bigint PK, dateandtime datetime, cashregisterid int,
--   customerid int, productid int, price int, data varchar(4000) of random
--   text (ib_data_min..ib_data_max characters);
--   marketsegment (productid, customerid)       -- the December 2023 description;
--                 (price, customerid) before that: --ib_marketsegment=price
--   registersegment (cashregisterid, price, customerid)
--   pdc (price, dateandtime, customerid)
--
-- Keys: every writer owns a disjoint key stream, so that writers never wait
-- for each other's rows and no counter row is shared (a counter row would
-- serialise the writers and add undo of its own to what purge has to do).
-- At its start each writer reads MIN and MAX(transactionid). With W writers
-- and k = ib_rows_per_commit, the keys above MAX are cut in batches of k
-- consecutive keys; writer w inserts batches w, w+W, w+2W, ..., so together
-- the writers insert in PK order at the right edge of the index, each
-- statement a run of k consecutive keys. Deletes walk the same way up from
-- MIN: writer w deletes batches w, w+W, ... of the keys that were there when
-- the step began (never a key at or above the step's first new key), by
-- their exact keys (IN list: record locks only, no gap locks, so writers do
-- not block each other). After each insert transaction a writer owes as many
-- deletes as it inserted; a delete transaction deletes up to 2k owed rows,
-- counting what each DELETE removed (SELECT ROW_COUNT()), and walks on over
-- keys that are gone (an earlier step's writers that ran unevenly leave
-- holes), at most 8 statements per transaction; what it could not delete it
-- still owes. So the table keeps its size and "deleted" counts real rows.
-- A writer's stream covers 1/W of the rows the step began with: a writer
-- that inserts more than table_size / W rows in one step runs out of rows
-- to delete and stops deleting (its deleted < inserted shows it);
-- insertbench.plan_steps() keeps every step below that.
--
-- Pacing: sysbench's --rate paces the events of all threads together, and
-- here writers are paced while readers are not, so this script replaces
-- sysbench's thread_run(): a paced writer starts its next event when it is
-- due, at t0 + rows inserted / ib_writer_rate, and sleeps outside the event
-- until then, so the sleep is neither an event nor part of any latency.
-- A writer that fell behind runs its events back to back until it is on
-- time again; behind_max_s is the most it was late.
--
-- Events and sysbench's report: an event is one writer step (an insert
-- transaction and then a delete transaction: two commits) or one query.
-- sysbench's tps, latency percentiles and --histogram=on cover all of them
-- together; per-role numbers are in the counter lines below.
--
-- Output: when its thread ends, every thread prints one line (a single
-- write, so lines of threads do not mix), before sysbench's final report:
--   ib-counters: v=1 step=STEP thread=N role=ROLE writers=W readers=R
--     rows_per_commit=K target_rate=RATE inserted=N deleted=N commits=N
--     queries=N query_rows=N events=N restarts=N seconds=S event_max_ms=MS
--     event_avg_ms=MS behind_max_s=S
-- (on one line). ROLE is writer, reader, indexer or idle. target_rate is
-- rows per second per writer, 0 when unpaced. seconds is the time from the
-- thread's first event to the end of its loop: for a writer, the time it
-- ran. queries counts SELECTs of readers and the indexer's ALTER. restarts
-- counts events retried after an error that --mysql-ignore-errors lets
-- through (deadlock, lock wait timeout); the transaction is rolled back
-- first.

local ffi = require("ffi")

-- each on its own, so that one already declared does not stop the others
local function cdef(decl)
   pcall(ffi.cdef, decl)
end
cdef("typedef struct { long tv_sec; long tv_nsec; } ib_timespec_t;")
cdef("int clock_gettime(int clk_id, ib_timespec_t *tp);")
cdef("int usleep(unsigned int usec);")

local CLOCK_MONOTONIC = 1
local ts = ffi.new("ib_timespec_t")

local function now()
   ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
   return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

local function sleep(seconds)
   if seconds > 0 then
      ffi.C.usleep(math.floor(seconds * 1e6))
   end
end

sysbench.cmdline.options = {
   ib_step = {"Step: load (l.i0), index (l.x), churn (l.i1, l.i2) or query "
                 .. "(qr*, qp*)", "load"},
   ib_table = {"Table name", "ib1"},
   table_size = {"Rows of the table: load inserts this many, churn and query "
                    .. "keep the table at its size", 100000},
   tables = {"Tables (1: the option is here because purgebench passes it)", 1},
   ib_rows = {"Rows to insert in the step, all writers together "
                 .. "(0: until --time ends; load: table_size)", 0},
   ib_rows_per_commit = {"Rows per insert transaction and per delete "
                            .. "transaction (load: per INSERT)", 50},
   ib_writers = {"query: threads 0..N-1 write, the others query (load and "
                    .. "churn: every thread writes)", 1},
   ib_writer_rate = {"Rows per second each writer inserts, and deletes "
                        .. "(0: as fast as it can)", 0},
   ib_query = {"query: range (a secondary index each in turn) or point "
                  .. "(primary key)", "range"},
   ib_range_length = {"Rows a range query reads (LIMIT)", 10},
   ib_data_min = {"Shortest data text, characters", 10},
   ib_data_max = {"Longest data text, characters", 20},
   ib_marketsegment = {"First column of index marketsegment: productid (the "
                          .. "benchmark since December 2023) or price", "productid"},
}

-- value domains of the generated columns
local CASHREGISTERS = 1000
local CUSTOMERS = 100000
local PRODUCTS = 10000
local PRICES = 100000
-- a delete transaction: at most this many DELETE statements, 2k owed rows
local DELETE_ROUNDS = 8
-- point readers look at the live key range this often (seconds)
local REFRESH_S = 5

local function fail(msg)
   error("insert_benchmark.lua: " .. msg, 0)
end

local function int_opt(name)
   local v = tonumber(sysbench.opt[name])
   if v == nil then
      fail("--" .. name .. " is not a number")
   end
   return math.floor(v)
end

-- the options, checked, as one table
local function config()
   local o = sysbench.opt
   local c = {
      step = o.ib_step, tbl = o.ib_table, size = int_opt("table_size"),
      rows = int_opt("ib_rows"), k = int_opt("ib_rows_per_commit"),
      rate = tonumber(o.ib_writer_rate) or -1, query = o.ib_query,
      range = int_opt("ib_range_length"), dmin = int_opt("ib_data_min"),
      dmax = int_opt("ib_data_max"), mseg = o.ib_marketsegment,
      threads = int_opt("threads"), time = tonumber(o.time) or 0,
   }
   local steps = {load = true, index = true, churn = true, query = true}
   if not steps[c.step] then
      fail("--ib_step is load, index, churn or query, not '" .. tostring(c.step) .. "'")
   end
   if not tostring(c.tbl):match("^[%a_][%w_]*$") then
      fail("--ib_table '" .. tostring(c.tbl) .. "' is not a plain table name")
   end
   if int_opt("tables") ~= 1 then
      fail("one table only: --tables=1")
   end
   if c.size < 1 or c.k < 1 or c.rows < 0 or c.rate < 0 or c.range < 1 then
      fail("--table_size, --ib_rows_per_commit and --ib_range_length are "
              .. "positive; --ib_rows and --ib_writer_rate 0 or more")
   end
   if c.dmin < 1 or c.dmax < c.dmin or c.dmax > 4000 then
      fail("1 <= --ib_data_min <= --ib_data_max <= 4000")
   end
   if c.query ~= "range" and c.query ~= "point" then
      fail("--ib_query is range or point, not '" .. tostring(c.query) .. "'")
   end
   if c.mseg ~= "productid" and c.mseg ~= "price" then
      fail("--ib_marketsegment is productid or price")
   end
   if c.step == "query" then
      c.writers = int_opt("ib_writers")
      if c.writers < 0 or c.writers > c.threads then
         fail("--ib_writers is 0.." .. c.threads .. " (--threads)")
      end
   elseif c.step == "index" then
      c.writers = 0
   else
      c.writers = c.threads
   end
   c.readers = (c.step == "query") and (c.threads - c.writers) or 0
   c.deletes = (c.step == "churn" or c.step == "query")
   return c
end

local function create_table_sql(c)
   return string.format([[
CREATE TABLE %s (
  transactionid BIGINT NOT NULL,
  dateandtime DATETIME NOT NULL,
  cashregisterid INT NOT NULL,
  customerid INT NOT NULL,
  productid INT NOT NULL,
  price INT NOT NULL,
  data VARCHAR(4000) NOT NULL,
  PRIMARY KEY (transactionid)
) ENGINE=InnoDB]], c.tbl)
end

local function index_sql(c)
   return string.format(
      "ALTER TABLE %s ADD INDEX IF NOT EXISTS marketsegment (%s, customerid), "
         .. "ADD INDEX IF NOT EXISTS registersegment (cashregisterid, price, customerid), "
         .. "ADD INDEX IF NOT EXISTS pdc (price, dateandtime, customerid)",
      c.tbl, c.mseg)
end

local function connect()
   local drv = sysbench.sql.driver()
   return drv, drv:connect()
end

local function cmd_prepare()
   local c = config()
   local drv, con = connect()
   con:query("DROP TABLE IF EXISTS " .. c.tbl)
   con:query(create_table_sql(c))
   print(string.format("Created table %s (load it with --ib_step=load)", c.tbl))
   con:disconnect()
end

local function cmd_cleanup()
   local c = config()
   local drv, con = connect()
   con:query("DROP TABLE IF EXISTS " .. c.tbl)
   con:disconnect()
end

sysbench.cmdline.commands = {
   prepare = {cmd_prepare},
   cleanup = {cmd_cleanup},
}

-- per thread (every thread has its own Lua state)
local c, drv, con, st

local function rand_below(n)
   return math.floor(sysbench.rand.uniform_double() * n)
end

local patterns = {}
local function rand_text()
   local len = c.dmin + rand_below(c.dmax - c.dmin + 1)
   local p = patterns[len]
   if p == nil then
      p = string.rep("@", len)
      patterns[len] = p
   end
   return sysbench.rand.string(p)
end

local function key_range()
   local lo, hi = con:query_row("SELECT MIN(transactionid), MAX(transactionid) FROM "
                                   .. c.tbl)
   return tonumber(lo), tonumber(hi)
end

function thread_init(thread_id)
   c = config()
   drv, con = connect()
   st = {inserted = 0, deleted = 0, commits = 0, queries = 0, query_rows = 0,
         events = 0, restarts = 0, event_max = 0, event_sum = 0, behind_max = 0,
         t0 = nil, t_end = nil}
   if c.step == "index" then
      st.role = (thread_id == 0) and "indexer" or "idle"
      return
   end
   if thread_id >= c.writers then
      st.role = "reader"
      st.q = thread_id
      if c.query == "point" then
         st.lo, st.hi = key_range()
         st.refresh_at = now() + REFRESH_S
      end
      return
   end
   st.role = "writer"
   local lo, hi = key_range()
   -- inserts: batches g = thread_id, +W, ... of k keys from ins_base
   st.ins_base = (hi or 0) + 1
   st.ins_g = thread_id
   st.limit = (c.step == "load") and c.size or c.rows    -- rows, 0: none
   -- deletes: the same walk up from MIN, below the step's first new key
   st.del_base = lo or st.ins_base
   st.del_g = thread_id
   st.del_off = 0
   st.del_limit = st.ins_base
   st.owed = 0
   st.pending_delete = false
end

local function insert_batch()
   local k, first = c.k, st.ins_base + st.ins_g * c.k
   local n = k
   if st.limit > 0 then
      n = math.min(k, st.limit - st.ins_g * k)
   end
   if n <= 0 then
      return 0
   end
   local rows = {}
   for i = 0, n - 1 do
      rows[#rows + 1] = string.format("(%d,NOW(),%d,%d,%d,%d,'%s')", first + i,
                                      rand_below(CASHREGISTERS), rand_below(CUSTOMERS),
                                      rand_below(PRODUCTS), rand_below(PRICES), rand_text())
   end
   con:query("BEGIN")
   con:query("INSERT INTO " .. c.tbl .. " (transactionid, dateandtime, cashregisterid, "
                .. "customerid, productid, price, data) VALUES " .. table.concat(rows, ","))
   con:query("COMMIT")
   st.ins_g = st.ins_g + c.writers
   st.inserted = st.inserted + n
   st.commits = st.commits + 1
   return n
end

-- the next n keys of this writer's delete stream from (g, off); the keys,
-- and where the stream then stands
local function take(g, off, n)
   local keys = {}
   while #keys < n do
      local key = st.del_base + g * c.k + off
      if key >= st.del_limit then
         break
      end
      keys[#keys + 1] = key
      off = off + 1
      if off == c.k then
         off, g = 0, g + c.writers
      end
   end
   return keys, g, off
end

local function delete_oldest()
   local want = math.min(st.owed, 2 * c.k)
   local g, off, deleted, open = st.del_g, st.del_off, 0, false
   for _ = 1, DELETE_ROUNDS do
      if deleted >= want then
         break
      end
      local keys
      keys, g, off = take(g, off, want - deleted)
      if #keys == 0 then
         break              -- none of the step's old rows left in this stream
      end
      if not open then
         con:query("BEGIN")
         open = true
      end
      con:query("DELETE FROM " .. c.tbl .. " WHERE transactionid IN ("
                   .. table.concat(keys, ",") .. ")")
      deleted = deleted + (tonumber(con:query_row("SELECT ROW_COUNT()")) or 0)
   end
   if open then
      con:query("COMMIT")
      st.commits = st.commits + 1
   end
   -- only now, committed: a retried event starts from where it stood
   st.del_g, st.del_off = g, off
   st.owed = st.owed - deleted
   st.deleted = st.deleted + deleted
end

local function writer_event()
   if not st.pending_delete then
      local n = insert_batch()
      if n == 0 then
         return true        -- the step's rows are in: this thread is done
      end
      if c.deletes then
         st.owed = st.owed + n
         st.pending_delete = true
      end
   end
   if st.pending_delete then
      delete_oldest()
      st.pending_delete = false
   end
end

local RANGE_SQL = {
   function()
      local col = c.mseg
      local domain = (col == "price") and PRICES or PRODUCTS
      return string.format("SELECT %s, customerid FROM %s FORCE INDEX (marketsegment) "
                              .. "WHERE %s >= %d ORDER BY %s, customerid LIMIT %d",
                           col, c.tbl, col, rand_below(domain), col, c.range)
   end,
   function()
      return string.format("SELECT cashregisterid, price, customerid FROM %s FORCE INDEX "
                              .. "(registersegment) WHERE cashregisterid >= %d ORDER BY "
                              .. "cashregisterid, price, customerid LIMIT %d",
                           c.tbl, rand_below(CASHREGISTERS), c.range)
   end,
   function()
      return string.format("SELECT price, dateandtime, customerid FROM %s FORCE INDEX (pdc) "
                              .. "WHERE price >= %d ORDER BY price, dateandtime, customerid "
                              .. "LIMIT %d", c.tbl, rand_below(PRICES), c.range)
   end,
}

local function reader_event()
   local sql
   if c.query == "point" then
      local lo, hi = st.lo or 1, st.hi or c.size
      sql = string.format("SELECT transactionid, dateandtime, cashregisterid, customerid, "
                             .. "productid, price, data FROM %s WHERE transactionid = %d",
                          c.tbl, lo + rand_below(hi - lo + 1))
   else
      st.q = st.q + 1
      sql = RANGE_SQL[st.q % #RANGE_SQL + 1]()
   end
   local rs = con:query(sql)
   st.queries = st.queries + 1
   if rs ~= nil then
      st.query_rows = st.query_rows + tonumber(rs.nrows)
   end
end

local function index_event()
   if st.role == "idle" or st.indexed then
      return true
   end
   con:query(index_sql(c))
   st.queries = st.queries + 1
   st.indexed = true
end

function event()
   if st.role == "writer" then
      return writer_event()
   elseif st.role == "reader" then
      return reader_event()
   end
   return index_event()
end

-- a paced writer waits, outside any event, until its next event is due
local function pace(deadline)
   local due = st.t0 + st.inserted / c.rate
   local late = now() - due
   if late > st.behind_max then
      st.behind_max = late
   end
   while true do
      local t = now()
      if t >= due or (deadline and t >= deadline) then
         return
      end
      sleep(math.min(due - t, 0.1))
   end
end

-- sysbench's own loop (sysbench.lua), with the pacing and the point
-- readers' look at the key range between events, and a rollback before an
-- event is retried
function thread_run(thread_id)
   st.t0 = now()
   local deadline = (c.time > 0) and (st.t0 + c.time) or nil
   local paced = st.role == "writer" and c.rate > 0
   while ffi.C.sb_more_events(thread_id) do
      if paced then
         pace(deadline)
      end
      if st.refresh_at and now() >= st.refresh_at then
         st.lo, st.hi = key_range()
         st.refresh_at = now() + REFRESH_S
      end
      ffi.C.sb_event_start(thread_id)
      local t = now()
      local ok, ret
      repeat
         ok, ret = pcall(event, thread_id)
         if not ok then
            if type(ret) == "table" and ret.errcode == sysbench.error.RESTART_EVENT then
               st.restarts = st.restarts + 1
               pcall(function() con:query("ROLLBACK") end)
            else
               error(ret, 0)
            end
         end
      until ok
      if ret then
         break
      end
      ffi.C.sb_event_stop(thread_id)
      local dt = now() - t
      st.events = st.events + 1
      st.event_sum = st.event_sum + dt
      if dt > st.event_max then
         st.event_max = dt
      end
   end
   st.t_end = now()
end

function thread_done(thread_id)
   local seconds = (st.t0 and st.t_end) and (st.t_end - st.t0) or 0
   local avg = (st.events > 0) and (st.event_sum / st.events) or 0
   io.write(string.format(
               "ib-counters: v=1 step=%s thread=%d role=%s writers=%d readers=%d "
                  .. "rows_per_commit=%d target_rate=%g inserted=%d deleted=%d commits=%d "
                  .. "queries=%d query_rows=%d events=%d restarts=%d seconds=%.3f "
                  .. "event_max_ms=%.3f event_avg_ms=%.3f behind_max_s=%.3f\n",
               c.step, thread_id, st.role, c.writers, c.readers, c.k,
               (st.role == "writer") and c.rate or 0, st.inserted, st.deleted,
               st.commits, st.queries, st.query_rows, st.events, st.restarts, seconds,
               st.event_max * 1000, avg * 1000, st.behind_max))
   io.stdout:flush()
   con:disconnect()
end
