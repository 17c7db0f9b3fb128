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

/* A discrete-event model of a server on a few CPUs under a write load,
one connection and one transaction at a time, that drives the throttle's
own code with an injected clock, called as srv0purgelab_adaptive.cc and
srv0purgelab_drain.cc call it: the law (adaptive_controller::update(), its
inputs as purge_throttle_evaluate() reads them), the gate (publish(),
try_enter(), enqueue(), admit(), dequeue(), leave(), lapsed(),
give_up_at(), wake_at()), the points where a connection holds nothing
(at_point(), trx_ended()), ticket_bound(), and the rollback segment drain
(rseg_drain::visited()).  closed_loop.h is the fluid model of the law alone,
at scales beyond this machine; this one is the scale of the machine, where
what the law does to each transaction matters.

 - connections: a closed loop.  Each passes the gate at its point (paying
   a wait that its last commit owes, then let in before the next
   transaction while a limit is in force), begins a transaction that
   takes the next rollback segment that the drain does not withhold, waits
   for its row's lock if it updates a hot row, runs on a CPU, stays open
   off the CPU (round trips within the transaction), commits (the
   history grows by one; the row lock and the segment go), holds its
   ticket until the commit is durable, and thinks;
 - the CPUs: processor sharing among the threads that are runnable: the
   transactions on a CPU, and purge's threads while it has anything to
   parse.  So a crowd let in takes the CPUs from purge;
 - purge parses the history in commit order, batch by batch; after each
   batch the coordinator evaluates the law and undo log truncation visits
   the 128 rollback segments: one that no open transaction references
   frees what purge parsed in it (purge_sys_t::iterator::free_history_rseg());
   within a batch longer than POLL_MAX the timer evaluates the law;
 - hot rows: a share of the transactions update one of a few rows, whose
   lock is held from the start to the commit, its waiters queued in turn;
   handing a lock over costs the committing thread CPU for each waiter in
   the queue (the lock queue's walk);
 - noise: each transaction's CPU times a factor of mean 1, uniform, drawn
   every noise_period (a fixed seed);
 - stalls: for stall_length of every stall_every seconds purge gets no CPU
   (a loaded machine's scheduler), while the connections run on; the batch
   timer still evaluates the law. */

#ifndef purgelab_server_model_h
#define purgelab_server_model_h

#include "trx0gate.h"
#include "trx0drain.h"
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

namespace purgelab_server
{
using purge_throttle::adaptive_controller;
using purge_throttle::point_action;

struct params
{
  unsigned connections= 256;
  double cpus= 2;
  /** CPU seconds a transaction takes (server and client) */
  double trx_cpu= 400e-6;
  /** seconds a transaction stays open off the CPU (round trips) */
  double open_time= 0;
  /** seconds from the commit to its durability (the ticket is held) */
  double durable_time= 1e-3;
  /** seconds between transactions off the CPU */
  double think_time= 100e-6;
  /** CPU seconds between transactions (the client's, and the server's
  outside the transaction) */
  double think_cpu= 0;
  /** CPU seconds purge takes to parse one transaction */
  double parse_cpu= 20e-6;
  /** purge threads (innodb_purge_threads) */
  unsigned purge_threads= 4;
  /** transactions that a purge batch parses */
  unsigned batch= 1000;
  /** seconds between undo log truncation passes, at least (0: one after
  every batch) */
  double truncation_every= 0;
  /** rows that hot_share of the transactions update (0: none) */
  unsigned hot_rows= 0;
  double hot_share= 0.75;
  /** CPU seconds per waiter that handing a row lock over costs */
  double handover_cpu= 0;
  /** standard deviation of the CPU factor (uniform), and its period */
  double noise= 0, noise_period= 1;
  /** seconds between the starts of purge's stalls (0: none), and their
  length */
  double stall_every= 0, stall_length= 0;
  /** seconds between samples */
  double sample_every= 1;
  /** innodb_max_purge_lag (0: unthrottled) */
  uint64_t target= 10000;
  double seconds= 60;
  /** the rate alone: the law's bound is not published */
  bool rate_alone= false;
  /** the law is told of the lock waits (false: it sees none) */
  bool lock_waits_seen= true;
  /** no law: a fixed bound on the transactions let in (the search for
  the best bound) */
  unsigned fixed_bound= 0;
  /** with fixed_bound: rollback segments that the drain may withhold */
  unsigned fixed_drain= 0;
  uint64_t seed= 88172645463325252ULL;
};

/** What a sampling period of the run showed (sampled at its end, as the
harness samples a server once a second) */
struct sample
{
  double history= 0;
  double commits= 0;
  unsigned bound= 0;     /* the gate's bound (0: none) */
  uint64_t limit= 0;     /* the published rate (0: none) */
  unsigned waiting= 0;   /* at the gate */
  unsigned lock_waits= 0;
  double parsed= 0;      /* transactions purge parsed in it */
  unsigned open= 0;      /* transactions open */
  double pending= 0;     /* of the history, parsed and not truncated */
};

struct result
{
  /** one sample per period, the first at its end */
  std::vector<sample> samples;
  /** seconds between samples (params::sample_every) */
  double period= 1;
  /** evaluations that published a limit on an empty history */
  unsigned held_empty= 0;

  /** @return the index of the sample that ends s seconds into the run,
  less one: [a, b) s are the samples at(a) to at(b) - 1 */
  size_t at(double s) const { return size_t(std::lround(s / period)); }
  /** @return at(b), at most the samples taken */
  size_t upto(double b) const { return std::min(at(b), samples.size()); }

  /** the history's 95th percentile over the samples in [a, b) s */
  double p95(double a, double b) const
  {
    std::vector<double> h;
    for (size_t i= at(a); i < upto(b); i++)
      h.push_back(samples[i].history);
    if (h.empty())
      return 0;
    std::sort(h.begin(), h.end());
    return h[size_t(0.95 * double(h.size() - 1))];
  }
  /** the mean commit rate in [a, b) s, per second */
  double throughput(double a, double b) const
  {
    double c= 0;
    size_t n= 0;
    for (size_t i= at(a); i < upto(b); i++, n++)
      c+= samples[i].commits;
    return n ? c / (double(n) * period) : 0;
  }
  /** @return the seconds in [a, b) whose samples satisfy f (a sample
  stands for its period) */
  template<class F> unsigned seconds_where(double a, double b, F f) const
  {
    unsigned n= 0;
    for (size_t i= at(a); i < upto(b); i++)
      n+= f(samples[i]);
    return unsigned(std::lround(double(n) * period));
  }
  /** seconds in [a, b) that ended with a bound in force */
  unsigned bound_seconds(double a, double b) const
  { return seconds_where(a, b, [](const sample &s) { return s.bound != 0; }); }
  /** seconds in [a, b) that ended with connections waiting at the gate */
  unsigned waiting_seconds(double a, double b) const
  {
    return seconds_where(a, b,
                         [](const sample &s) { return s.waiting != 0; });
  }
  /** the least bound in force at a sample in [a, b) (0: none) */
  unsigned least_bound(double a, double b) const
  {
    unsigned m= 0;
    for (size_t i= at(a); i < upto(b); i++)
      if (samples[i].bound && (!m || samples[i].bound < m))
        m= samples[i].bound;
    return m;
  }
};

/** The plant with the throttle's code.  What the server does with its law
and gate is in virtual functions, so that
law-43587ff/server_model_43587ff.h runs an earlier law in the same plant. */
class server
{
public:
  explicit server(const params &p) : m_p(p), m_conn(p.connections),
    m_rows(p.hot_rows), m_seed(p.seed ? p.seed : 1),
    m_notify([this](purge_throttle::gate_waiter &w) { signal(w); })
  {
    for (unsigned i= 0; i < m_conn.size(); i++)
      m_conn[i].id= i;
  }
  virtual ~server() {}

  result run()
  {
    const double dt= STEP;
    for (unsigned i= 0; i < m_conn.size(); i++)
      /* the clients start one after another within a millisecond */
      at(1e-3 * double(i) / double(m_conn.size()), i, THINK_DONE);
    m_next_eval= POLL_MIN_S;
    m_result.period= m_p.sample_every;
    double next_sample= m_p.sample_every, next_fixed= 0;
    sample cur;
    double commits0= 0, parsed0= 0;
    for (m_t= 0; m_t < m_p.seconds; m_t+= dt)
    {
      if (m_p.noise > 0 && m_t >= m_next_noise)
      {
        m_next_noise= m_t + m_p.noise_period;
        m_noise= std::max(0.05, 1 + m_p.noise * std::sqrt(3.0) *
                          (2 * uniform() - 1));
      }
      if (m_p.fixed_bound && m_t >= next_fixed)
      {
        /* a bound that never lapses: republished every POLL_MAX */
        next_fixed= m_t + POLL_MAX_S;
        m_gate.publish(ns(), 0, purge_throttle::ticket_bound
                       (m_p.fixed_bound, m_open, m_gate.tickets()),
                       notifier());
      }
      /* timed events due */
      while (!m_events.empty() && m_events.top().t <= m_t)
      {
        const event e= m_events.top();
        m_events.pop();
        if (e.gen == m_conn[e.conn].gen)
          handle(m_conn[e.conn], e.what);
      }
      /* the coordinator takes a batch of what is there, at most `batch`;
      after a short one it waits POLL_MIN for more */
      if (!m_batch_left && !m_unparsed.empty() && m_t >= m_idle_until)
      {
        m_batch_left= unsigned(std::min<size_t>(m_p.batch,
                                                m_unparsed.size()));
        if (m_batch_left < m_p.batch)
          m_idle_until= m_t + POLL_MIN_S;
        batch_taken();
      }
      /* processor sharing: each runnable thread gets min(1, cpus / n) */
      const bool purging= m_batch_left != 0;
      const bool stalled= m_p.stall_every > 0 &&
        std::fmod(m_t, m_p.stall_every) < m_p.stall_length;
      const double runnable= double(m_on_cpu) +
        (purging && !stalled ? double(m_p.purge_threads) : 0);
      const double speed= runnable > 0 ? std::min(1.0, m_p.cpus / runnable)
        : 1;
      m_virtual+= speed * dt;
      while (!m_cpu.empty() && m_cpu.top().t <= m_virtual)
      {
        const event e= m_cpu.top();
        m_cpu.pop();
        if (e.gen == m_conn[e.conn].gen)
          handle(m_conn[e.conn], CPU_DONE);
      }
      if (purging)
      {
        /* a stalled batch parses nothing and does not end */
        if (!stalled)
          purge(speed * dt * double(m_p.purge_threads) / m_p.parse_cpu);
      }
      else if (m_t >= m_next_eval)
        batch_end();    /* nothing to parse: the coordinator looks again */
      if (m_t >= m_next_eval && purging)
        evaluate();     /* the batch timer, within a long batch */
      if (m_t >= next_sample)
      {
        next_sample+= m_p.sample_every;
        cur.history= double(history());
        cur.commits= m_commits - commits0;
        cur.parsed= double(m_parsed) - parsed0;
        commits0= m_commits;
        parsed0= double(m_parsed);
        cur.bound= gate_bound();
        cur.limit= m_limit;
        cur.waiting= gate_waiting();
        cur.lock_waits= m_lock_waits;
        cur.open= m_open;
        cur.pending= double(m_pending);
        m_result.samples.push_back(cur);
        cur= sample();
      }
    }
    return m_result;
  }

protected:
  static constexpr double STEP= 20e-6;
  static constexpr double POLL_MIN_S= double(purge_throttle::POLL_MIN) * 1e-6;
  static constexpr double POLL_MAX_S= double(purge_throttle::POLL_MAX) * 1e-6;
  static constexpr unsigned N_RSEGS= purge_throttle::rseg_drain::N_RSEGS;

  enum kind { THINK_DONE, GATE_WAKE, GATE_LET_IN, CPU_DONE, OPEN_DONE,
              DURABLE };
  enum state { THINKING, AT_GATE, LOCK_WAIT, ON_CPU, OPEN, COMMITTED,
               CLIENT };

  struct conn
  {
    unsigned id= 0;
    /** the connection's place at the gate, as in its trx_t */
    purge_throttle::connection place{};
    purge_throttle::gate_waiter waiter;
    state st= THINKING;
    /** events older than this generation are stale */
    uint64_t gen= 0;
    uint64_t queued= 0;
    /** it waits to pay a wait owed (else to be let in) */
    bool paying= false;
    /** on a CPU to hand its row lock over */
    bool handing_over= false;
    int rseg= -1, row= -1;
  };
  struct event
  {
    double t;
    unsigned conn;
    uint64_t gen;
    kind what;
    bool operator<(const event &o) const { return t > o.t; }
  };
  struct row
  {
    bool locked= false;
    std::deque<unsigned> queue;
  };

  uint64_t ns() const { return uint64_t(m_t * 1e9) + 1; }
  double uniform()
  {
    m_seed^= m_seed << 13; m_seed^= m_seed >> 7; m_seed^= m_seed << 17;
    return double(m_seed >> 11) / 9007199254740992.0;
  }
  void at(double t, unsigned c, kind k)
  { m_events.push(event{t, c, m_conn[c].gen, k}); }
  /** a demand of mean m, exponentially distributed */
  double draw(double m) { return -m * std::log(1 - uniform()); }
  void on_cpu(conn &c, double demand)
  {
    c.st= ON_CPU;
    m_on_cpu++;
    m_cpu.push(event{m_virtual + demand, c.id, c.gen, CPU_DONE});
  }

  /** what signal_waiter() does on the server: the waiter's thread wakes */
  void signal(purge_throttle::gate_waiter &w)
  {
    conn &c= *reinterpret_cast<conn*>(reinterpret_cast<char*>(&w) -
                                      offsetof(conn, waiter));
    if (c.st == AT_GATE)
      at(m_t, c.id, w.admitted ? GATE_LET_IN : GATE_WAKE);
  }
  const std::function<void(purge_throttle::gate_waiter&)> &notifier() const
  { return m_notify; }

  bool in_force() const { return m_gate.in_force(ns(), true); }

  /** purge_throttle_wait_point(): the connection holds nothing */
  virtual void point(conn &c)
  {
    if (purge_throttle::at_point(c.place, true, false) == point_action::PAY)
    {
      c.place.owes_wait= false;
      if (wait_at_gate(c, true))
        return;
    }
    admit_and_begin(c);
  }

  /** The point's last step: let in before a transaction that may write,
  while a limit is in force; then the transaction begins, unless the
  connection waits at the gate (gate_left() begins it). */
  void admit_and_begin(conn &c)
  {
    if (purge_throttle::at_point(c.place, true, in_force()) ==
        point_action::ADMIT)
    {
      c.place.admitted= true;   /* a limit is in force */
      if (wait_at_gate(c, false))
        return;
    }
    begin(c);
  }

  /** purge_throttle_sys_t::admit() once a limit is in force
  @return whether it waits (else it was let in at once) */
  bool wait_at_gate(conn &c, bool pay)
  {
    if (!m_gate.published() || !in_force())
      return false;
    purge_throttle::admission_gate::ticket *t= pay ? nullptr
      : &c.place.ticket;
    if (m_gate.try_enter(ns(), t))
      return false;
    c.waiter.ticket= t;
    if (m_gate.enqueue(ns(), c.waiter))
      return false;
    c.st= AT_GATE;
    c.paying= pay;
    c.queued= ns();
    c.gen++;
    at(m_t, c.id, GATE_WAKE);
    return true;
  }

  /** the waiter's loop in purge_throttle_sys_t::admit() */
  virtual void gate_wake(conn &c)
  {
    purge_throttle::gate_waiter &w= c.waiter;
    if (w.admitted)
      return gate_left(c);
    if (m_gate.head() != &w)
      return;                       /* it sleeps until it is woken */
    const uint64_t now= ns();
    if (m_gate.lapsed(now, true))
    {
      m_gate.open(now, notifier());
      return gate_left(c);
    }
    m_gate.admit(now, notifier());
    if (w.admitted)
      return gate_left(c);
    if (now >= m_gate.give_up_at(c.queued))
    {
      m_gate.gave_up(now);
      return gate_left(c);
    }
    c.gen++;
    at(double(m_gate.wake_at(now, c.queued)) * 1e-9, c.id, GATE_WAKE);
  }

  void gate_left(conn &c)
  {
    m_gate.dequeue(c.waiter, notifier());
    c.waiter.ticket= nullptr;
    c.gen++;
    c.st= THINKING;
    if (c.paying)
    {
      c.paying= false;
      /* on to the point's next step: let in before the transaction */
      return admit_and_begin(c);
    }
    begin(c);
  }

  /** the transaction starts: a rollback segment, a row lock, the CPU */
  void begin(conn &c)
  {
    m_open++;
    unsigned r= m_next_rseg;
    for (unsigned i= 0; i < N_RSEGS && m_withheld[r]; i++)
      r= (r + 1) % N_RSEGS;
    m_next_rseg= (r + 1) % N_RSEGS;
    c.rseg= int(r);
    m_refs[r]++;
    c.row= -1;
    if (!m_rows.empty() && uniform() < m_p.hot_share)
    {
      c.row= int(uniform() * double(m_rows.size())) % int(m_rows.size());
      row &w= m_rows[size_t(c.row)];
      if (w.locked)
      {
        w.queue.push_back(c.id);
        c.st= LOCK_WAIT;
        m_lock_waits++;
        return;
      }
      w.locked= true;
    }
    on_cpu(c, draw(m_p.trx_cpu) * m_noise);
  }

  /** the commit: the history grows, the lock and the segment go */
  void commit(conn &c)
  {
    m_unparsed.push_back(uint8_t(c.rseg));
    m_commits++;
    m_refs[size_t(c.rseg)]--;
    m_open--;
    if (c.row >= 0)
    {
      row &w= m_rows[size_t(c.row)];
      if (w.queue.empty())
        w.locked= false;
      else
      {
        conn &n= m_conn[w.queue.front()];
        w.queue.pop_front();
        m_lock_waits--;
        n.gen++;
        on_cpu(n, draw(m_p.trx_cpu) * m_noise);
      }
    }
    c.st= COMMITTED;
    c.gen++;
    at(m_t + draw(m_p.durable_time), c.id, DURABLE);
  }

  void handle(conn &c, kind k)
  {
    switch (k) {
    case THINK_DONE:
      if (m_p.think_cpu > 0)
      {
        c.gen++;
        on_cpu(c, draw(m_p.think_cpu) * m_noise);
        c.st= CLIENT;
        return;
      }
      return point(c);
    case GATE_WAKE:
      if (c.st == AT_GATE)
        gate_wake(c);
      return;
    case GATE_LET_IN:
      if (c.st == AT_GATE)
        gate_left(c);
      return;
    case CPU_DONE:
      m_on_cpu--;
      if (c.st == CLIENT)
        return point(c);
      if (c.row >= 0 && !m_rows[size_t(c.row)].queue.empty() &&
          !c.handing_over && m_p.handover_cpu > 0)
      {
        /* handing the lock over walks its queue */
        c.handing_over= true;
        c.gen++;
        on_cpu(c, m_p.handover_cpu *
               double(m_rows[size_t(c.row)].queue.size()));
        return;
      }
      c.handing_over= false;
      if (m_p.open_time > 0)
      {
        c.st= OPEN;
        c.gen++;
        at(m_t + draw(m_p.open_time), c.id, OPEN_DONE);
        return;
      }
      return commit(c);
    case OPEN_DONE:
      return commit(c);
    case DURABLE:
      trx_ended(c);
      c.st= THINKING;
      c.gen++;
      at(m_t + draw(m_p.think_time), c.id, THINK_DONE);
      return;
    }
  }

  /** purge_throttle_trx_ended() */
  virtual void trx_ended(conn &c)
  {
    if (m_gate.leave(c.place.ticket))
      m_gate.admit(ns(), notifier());
    purge_throttle::trx_ended(c.place, true,
                              m_p.target && !m_p.fixed_bound &&
                              m_gate.published());
  }

  /** the gate's bound and the connections waiting at it, sampled */
  virtual unsigned gate_bound() const { return m_gate.concurrency(); }
  virtual unsigned gate_waiting() const { return m_gate.waiting(); }

  uint64_t history() const { return uint64_t(m_unparsed.size()) + m_pending; }

  /** purge parses up to n transactions of its batch (a fraction carries
  over) */
  void purge(double n)
  {
    m_parse_budget+= n;
    while (m_parse_budget >= 1 && m_batch_left)
    {
      m_parse_budget-= 1;
      m_rseg_pending[m_unparsed.front()]++;
      m_unparsed.pop_front();
      m_pending++;
      m_parsed++;
      if (!--m_batch_left)
      {
        m_parse_budget= 0;
        batch_end();
      }
    }
  }

  /** the coordinator took a batch of m_batch_left transactions */
  virtual void batch_taken() {}

  /** a batch ended, or the coordinator looks again with nothing to parse:
  undo log truncation, then the law */
  virtual void batch_end()
  {
    truncate_if_due();
    evaluate();
  }

  /** a truncation pass, if one is due (params::truncation_every) */
  void truncate_if_due()
  {
    if (m_t >= m_next_pass)
    {
      m_next_pass= m_t + m_p.truncation_every;
      truncate();
    }
  }

  /** a truncation pass over every rollback segment */
  void truncate()
  {
    const unsigned width= m_drain_width;
    for (unsigned r= 0; r < N_RSEGS; r++)
    {
      const bool referenced= m_refs[r] != 0;
      if (!referenced)
      {
        m_pending-= m_rseg_pending[r];
        m_rseg_pending[r]= 0;
      }
      purge_throttle::rseg_drain::visit v;
      v.rseg= r;
      v.busy= referenced && m_rseg_pending[r];
      v.referenced= referenced;
      v.skip= m_withheld[r];
      v.tablespace_truncating= false;
      switch (m_drain.visited(v, width)) {
      case purge_throttle::rseg_drain::WITHHOLD: m_withheld[r]= true; break;
      case purge_throttle::rseg_drain::RELEASE: m_withheld[r]= false; break;
      case purge_throttle::rseg_drain::KEEP: break;
      }
    }
  }

  /** purge_throttle_evaluate() */
  void evaluate()
  {
    m_next_eval= m_t + (m_unparsed.empty() ? POLL_MIN_S : POLL_MAX_S);
    if (m_p.fixed_bound)
      m_drain_width= m_p.fixed_drain;
    if (!m_p.target || m_p.fixed_bound)
      return;
    const uint64_t now= ns(), x= history();
    const uint64_t inside= std::max<uint64_t>(m_open, m_gate.tickets());
    /* no read view blocks purge here: it can progress, also with an
    empty history (purge_throttle_adaptive_no_history()) */
    m_limit= m_ctl.update(now / 1000, x, m_pending, m_parsed, m_p.target,
                          true, m_gate.want(m_open), m_gate.rate_bound(),
                          inside, m_p.lock_waits_seen ? m_lock_waits : 0);
    const unsigned w= m_p.rate_alone ? 0 : m_ctl.concurrency();
    if (!x && (m_limit || w))
      m_result.held_empty++;
    m_gate.publish(now, m_limit, purge_throttle::ticket_bound
                   (w, m_open, m_gate.tickets()), notifier());
    m_drain_width= m_ctl.drain_width();
  }

  const params m_p;
  std::vector<conn> m_conn;
  std::vector<row> m_rows;
  uint64_t m_seed;
  /** signal(), as the gate's Notify */
  const std::function<void(purge_throttle::gate_waiter&)> m_notify;
  double m_t= 0, m_virtual= 0;
  std::priority_queue<event> m_events, m_cpu;
  unsigned m_on_cpu= 0, m_open= 0, m_lock_waits= 0;
  double m_noise= 1, m_next_noise= 0;
  /** the history: unparsed, in commit order (their rollback segments),
  and parsed, waiting for truncation, per segment */
  std::deque<uint8_t> m_unparsed;
  uint64_t m_rseg_pending[N_RSEGS]= {}, m_pending= 0, m_parsed= 0;
  unsigned m_refs[N_RSEGS]= {};
  bool m_withheld[N_RSEGS]= {};
  unsigned m_next_rseg= 0, m_batch_left= 0, m_drain_width= 0;
  double m_parse_budget= 0, m_next_eval= 0, m_idle_until= 0, m_next_pass= 0,
    m_commits= 0;
  adaptive_controller m_ctl;
  purge_throttle::gate m_gate;
  purge_throttle::rseg_drain m_drain;
  uint64_t m_limit= 0;
  result m_result;
};

/** Run a plant. */
inline result run(const params &p) { return server(p).run(); }

/** The best commit rate that holds the target in [from, seconds) with a
fixed bound, searched over the bound (1, 2, 3, 4, 6, 8, ... to the
connections); the bound and the rate it held at */
struct best { unsigned bound= 0; double throughput= 0, p95= 0; };
inline best best_bound(params p, double from)
{
  best b;
  for (unsigned w= 1; w <= p.connections; w= std::max(w + 1, w * 4 / 3))
  {
    p.fixed_bound= w;
    p.fixed_drain= adaptive_controller::DRAIN_WIDTH;
    const result r= run(p);
    const double h= r.p95(from, p.seconds), x= r.throughput(from, p.seconds);
    if (h <= 1.1 * double(p.target) && x > b.throughput)
    {
      b.bound= w;
      b.throughput= x;
      b.p95= h;
    }
  }
  return b;
}
} // namespace purgelab_server

#endif
