# Copyright (c) 2026, purgelab developers.
#
# This program is free software; you can redistribute it and/or modify it
# under the terms of the GNU General Public License as published by the Free
# Software Foundation; version 2 of the License.
#
# This program is distributed in the hope that it will be useful, but WITHOUT
# ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS
# FOR A PARTICULAR PURPOSE. See the GNU General Public License for more details.
#
# You should have received a copy of the GNU General Public License along with
# this program; if not, write to the Free Software Foundation, Inc.,
# 51 Franklin St, Fifth Floor, Boston, MA 02110-1335 USA

"""Deploy a mariadbd on a fresh data directory, query it, shut it down."""

import datetime
import os
import re
import shutil
import signal
import socket
import subprocess
import time


class ServerError(Exception):
    code = None     # the server's error number, when it answered with one


class MissingTool(ServerError):
    """What the harness needs on this machine is not there: no retry helps."""


BACKLOG_RE = re.compile(r"InnoDB: to purge (\d+) transactions")
# an error log line's time: "2026-11-25 21:05:53 0 [Note] ...", the hour
# space-padded by older servers ("2026-11-22  3:40:30")
LOG_TIME_RE = re.compile(r"^(\d{4}-\d\d-\d\d) +(\d{1,2}:\d\d:\d\d) ")
SHUTDOWN_LSN_RE = re.compile(r"Shutdown completed; log sequence number (\d+)")


def parse_backlog(log_text):
    """The first 'to purge N transactions' of the last slow shutdown."""
    return parse_shutdown(log_text)["to_purge"]


def log_time(line):
    """The time an error log line was written (a datetime, to the second),
    or None for a line without one (a continuation, a banner)."""
    m = LOG_TIME_RE.match(line)
    if not m:
        return None
    return datetime.datetime.strptime(f"{m.group(1)} {m.group(2)}", "%Y-%m-%d %H:%M:%S")


def parse_shutdown(log_text):
    """The last shutdown as the server's error log tells it (the part after
    its last 'Normal shutdown', or the whole text without one):
      to_purge  its first 'InnoDB: to purge N transactions' (InnoDB logs it
                as its slow shutdown begins and every 15 s after: the whole
                history length then, undo logs that purge processed and
                truncation had not freed included); 0 when none was logged:
                the history was empty when InnoDB's shutdown began
      log_s     seconds by the log's clock, whole seconds, from the 'Normal
                shutdown' line to the last 'Shutdown complete' (None when
                either is missing: no shutdown logged, or one that did not
                finish)
      lsn       the log sequence number InnoDB completed it at, or None."""
    start = log_text.rfind("Normal shutdown")
    part = log_text[log_text.rfind("\n", 0, start) + 1:] if start >= 0 else log_text
    m = BACKLOG_RE.search(part)
    lines = part.splitlines()
    begun = log_time(lines[0]) if start >= 0 and lines else None
    ended = [log_time(line) for line in lines if "Shutdown complete" in line]
    lsn = SHUTDOWN_LSN_RE.findall(part)
    return dict(to_purge=int(m.group(1)) if m else 0,
                log_s=(ended[-1] - begun).total_seconds()
                if begun and ended and ended[-1] else None,
                lsn=int(lsn[-1]) if lsn else None)


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_help_variables(text):
    """The option names of 'mariadbd --verbose --help' (its table
    "Variables (--variable-name=value) ... Value (after reading options)"),
    with '_' for '-'; None when the output has no such table."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines)
                     if line.startswith("Variables (--variable-name=value)"))
        sep = next(i for i in range(start, len(lines)) if lines[i].startswith("-----"))
    except StopIteration:
        return None
    names = set()
    for line in lines[sep + 1:]:
        if not line.strip():
            break
        names.add(line.split()[0].replace("-", "_"))
    return names or None


def cnf_key(key):
    """A my.cnf key as the help table names it ('-' as '_', no loose-)."""
    key = key.strip().replace("-", "_")
    return key[len("loose_"):] if key.startswith("loose_") else key


def unknown_settings(options, known):
    """The keys of options (a my.cnf's settings) that a server does not know
    (known: parse_help_variables()); a skip-X or disable-X is known when X is,
    a loose-X is never unknown (the server ignores it itself). None known:
    nothing is left out (the server could not be asked)."""
    if known is None:
        return []
    out = []
    for key in options:
        if key.strip().replace("_", "-").startswith("loose-"):
            continue
        k = cnf_key(key)
        base = re.sub(r"^(skip|disable|enable)_", "", k)
        if k not in known and base not in known:
            out.append(key)
    return out


def tail(path, lines=25):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError as e:
        return f"(cannot read {path}: {e})"


class Installation:
    """Where the server's programs are: a build tree, a tarball, /usr or
    Debian's packages unpacked elsewhere (tools/install-stock-server)."""

    def __init__(self, mariadbd, basedir=None,
                 hint="build it (BUILD/build) or pass another with --server"):
        self.mariadbd = os.path.abspath(mariadbd)
        if not os.access(self.mariadbd, os.X_OK):
            raise ServerError(f"no server binary at {self.mariadbd}: {hint}")
        bindir = os.path.dirname(self.mariadbd)
        self.basedir = basedir or os.path.dirname(bindir)
        # the mariadb client: for a person to type (the harness queries over
        # PyMySQL); None when there is none
        try:
            self.client = self._find("mariadb", [bindir, os.path.join(self.basedir, "bin"),
                                                 os.path.join(self.basedir, "client")])
        except ServerError:
            self.client = None
        # a cmake build tree rather than an installation
        self.srcdir = None
        cache = os.path.join(self.basedir, "CMakeCache.txt")
        if os.path.exists(cache):
            with open(cache) as f:
                for line in f:
                    if line.startswith("CMAKE_HOME_DIRECTORY:"):
                        self.srcdir = line.split("=", 1)[1].strip()
        self.install_db = self._find("mariadb-install-db",
                                     [os.path.join(self.basedir, "scripts"),
                                      os.path.join(self.basedir, "bin"), bindir])

    @staticmethod
    def _find(name, dirs):
        for d in dirs:
            p = os.path.join(d, name)
            if os.access(p, os.X_OK):
                return p
        p = shutil.which(name)
        if p:
            return p
        raise ServerError(f"cannot find {name} next to the server (looked in {', '.join(dirs)})")

    def server_args(self):
        """Options that locate the server's files."""
        if self.srcdir:
            return [f"--lc-messages-dir={os.path.join(self.basedir, 'sql', 'share')}"]
        if self.basedir == "/usr":
            return []
        args = [f"--basedir={self.basedir}"]
        # Debian's layout (usr/share/mysql/english/errmsg.sys) unpacked
        # outside /usr: name the messages as its mariadb-install-db does
        share = os.path.join(self.basedir, "share", "mysql")
        if os.path.isfile(os.path.join(share, "english", "errmsg.sys")):
            args.append(f"--lc-messages-dir={share}")
        return args

    def install_db_args(self):
        if self.srcdir:
            return [f"--srcdir={self.srcdir}", f"--builddir={self.basedir}"]
        if self.basedir == "/usr":
            return []
        return [f"--basedir={self.basedir}"]

    def variables(self):
        """The server's option and variable names ('mariadbd --verbose
        --help', asked once), or None if it would not say."""
        if not hasattr(self, "_variables"):
            try:
                out = subprocess.run([self.mariadbd, "--no-defaults", "--verbose", "--help"]
                                     + self.server_args(), stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, timeout=120)
                self._variables = parse_help_variables(out.stdout)
            except (OSError, subprocess.TimeoutExpired):
                self._variables = None
        return self._variables

    def version(self):
        out = subprocess.run([self.mariadbd, "--no-defaults", "--version"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return out.stdout.strip()


class Queries:
    """query(), value() and status() over PyMySQL (the sampler's client
    too), for Server and AttachedServer: one connection for the harness's
    statements and one beside it for status(), which a step's progress
    calls from another thread while query() may wait on a long statement
    (a PyMySQL connection serves one thread at a time). Each connects when
    first used, and again when the server no longer answers on it (a ping
    first: the server restarted, or a timed-out statement broke it)."""
    timeout = 3600      # seconds a statement may take unless query() says

    def __init__(self):
        import threading
        self.db = None
        self.side = None
        self.lock = threading.Lock()
        self.side_lock = threading.Lock()

    def _connect(self):
        try:
            import pymysql
        except ImportError:
            raise MissingTool("the harness needs PyMySQL: run BUILD/setup "
                              "(or apt-get install python3-pymysql)")
        try:
            return pymysql.connect(autocommit=True, connect_timeout=10, read_timeout=3600,
                                   **self.conn.pymysql_kwargs())
        except pymysql.MySQLError as e:
            raise ServerError(f"cannot connect to {self.conn.where()}: {e}")

    def _live(self, db):
        if db is None:
            # the first connection: says what to install if PyMySQL is missing
            return self._connect()
        import pymysql
        try:
            db.ping(reconnect=False)
            return db
        except (pymysql.MySQLError, OSError):
            close(db)
        return self._connect()

    def disconnect(self):
        """Close both connections (the server stopped, or is not ours)."""
        for lock, name in ((self.lock, "db"), (self.side_lock, "side")):
            with lock:
                db = getattr(self, name)
                setattr(self, name, None)
            close(db)

    def query(self, sql, timeout=None, split=True, raw=False):
        """Run SQL (statements split at ';', which the harness's own never
        hold elsewhere; split=False: one statement, whose values may hold
        one); rows of the last as lists of strings, NULL as 'NULL' (as the
        mariadb client's batch output; raw: as None). timeout: seconds to
        wait for an answer (default self.timeout)."""
        with self.lock:
            self.db = self._live(self.db)
            return run_sql(self.db, sql, timeout or self.timeout, split=split, raw=raw)

    def value(self, sql):
        rows = self.query(sql)
        return rows[0][0] if rows else None

    def status(self, names):
        """SHOW GLOBAL STATUS for names -> {name: str}, on the side
        connection (safe from another thread while query() waits)."""
        like = " OR ".join(f"VARIABLE_NAME='{n}'" for n in names)
        with self.side_lock:
            self.side = self._live(self.side)
            rows = run_sql(self.side, "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM "
                           f"information_schema.GLOBAL_STATUS WHERE {like}", 60)
        return {r[0].lower(): r[1] for r in rows}


def close(db):
    if db is not None:
        try:
            db.close()
        except Exception:
            pass


def run_sql(db, sql, timeout=None, split=True, raw=False):
    """Queries.query() on connection db."""
    import pymysql
    rows = []
    db._read_timeout = timeout or 3600      # PyMySQL reads it at each read
    try:
        with db.cursor() as cur:
            for stmt in (s.strip() for s in (sql.split(";") if split else [sql])):
                if stmt:
                    cur.execute(stmt)
                    rows = cur.fetchall() or []
    except pymysql.MySQLError as e:
        code = e.args[0] if e.args else "?"
        msg = e.args[1] if len(e.args) > 1 else str(e)
        err = ServerError(f"query failed: {sql}: ERROR {code}: {msg}")
        err.code = code         # Bench.has_var() reads it
        raise err
    return [[(None if raw else "NULL") if v is None else str(v) for v in row] for row in rows]


class Server(Queries):
    """One mariadbd on its own data directory, reachable over a socket; the
    harness's statements go over PyMySQL as root (Queries)."""
    timeout = 60        # as long as a statement of the harness takes here

    def __init__(self, inst, workdir, options=None, allow_nonempty=False, tcp_port=None,
                 launcher=()):
        Queries.__init__(self)
        self.inst = inst
        # a command the server runs under (valgrind ...), none by default
        self.launcher = list(launcher)
        # a client that needs TCP (go-tpc) gets 127.0.0.1 only, never another address
        self.tcp_port = tcp_port
        self.workdir = os.path.abspath(workdir)
        self.datadir = os.path.join(self.workdir, "data")
        self.socket = os.path.join(self.workdir, "mysqld.sock")
        self.errlog = os.path.join(self.workdir, "error.log")
        self.cnf = os.path.join(self.workdir, "my.cnf")
        self.conn = Conn(socket=self.socket, user="root")
        self.options = dict(options or {})
        self.proc = None
        self.shutdown_started = None
        self.log_mark = 0
        if os.path.isdir(self.datadir) and os.listdir(self.datadir) and not allow_nonempty:
            raise ServerError(f"data directory {self.datadir} is not empty; remove it or "
                              "pass --reuse-datadir")

    def write_cnf(self):
        os.makedirs(self.workdir, exist_ok=True)
        lines = ["[mariadbd]",
                 f"datadir={self.datadir}",
                 f"socket={self.socket}",
                 # socket only, or 127.0.0.1 when a client needs TCP
                 (f"bind-address=127.0.0.1\nport={self.tcp_port}" if self.tcp_port
                  else "skip-networking"),
                 f"log-error={self.errlog}",
                 "user=root" if os.getuid() == 0 else "",
                 f"pid-file={os.path.join(self.workdir, 'mysqld.pid')}"]
        for k, v in self.options.items():
            lines.append(f"{k}={v}" if v is not None else k)
        with open(self.cnf, "w") as f:
            f.write("\n".join(line for line in lines if line) + "\n")

    def initialize(self):
        self.write_cnf()
        if os.path.isdir(self.datadir) and os.listdir(self.datadir):
            return
        os.makedirs(self.datadir, exist_ok=True)
        cmd = ([self.inst.install_db, f"--defaults-file={self.cnf}"] +
               self.inst.install_db_args() + ["--auth-root-authentication-method=socket"])
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if out.returncode != 0:
            raise ServerError("mariadb-install-db failed:\n" + out.stdout[-3000:])

    def start(self, timeout=120):
        self.write_cnf()
        self.disconnect()
        if os.path.exists(self.socket):
            try:
                self.query("SELECT 1", timeout=5)
            except ServerError:
                os.remove(self.socket)      # stale socket of a dead server
            else:
                raise ServerError(f"another server already answers on {self.socket}; "
                                  "stop it first")
        cmd = (self.launcher + [self.inst.mariadbd, f"--defaults-file={self.cnf}"] +
               self.inst.server_args())
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise ServerError(f"mariadbd exited with code {self.proc.returncode} at "
                                  f"start; tail of {self.errlog}:\n{tail(self.errlog)}")
            if os.path.exists(self.socket):
                try:
                    self.query("SELECT 1")
                    return
                except MissingTool:
                    # the server may be up; this machine cannot talk to it
                    self.kill()
                    raise
                except ServerError as e:
                    last = e
            time.sleep(0.2)
        self.kill()
        raise ServerError(f"mariadbd did not answer within {timeout}s"
                          + (f" (the last attempt: {last})" if last else "")
                          + f"; tail of {self.errlog}:\n{tail(self.errlog)}")

    def prepare_slow_shutdown(self):
        """Make the next shutdown slow, ahead of time, so that it can start
        the instant the load stops."""
        self.query("SET GLOBAL innodb_fast_shutdown=0")

    def signal_shutdown(self):
        """Start a shutdown at once (SIGTERM: no client to spawn)."""
        self.log_mark = os.path.getsize(self.errlog) if os.path.exists(self.errlog) else 0
        self.shutdown_started = time.time()
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def shutdown(self, slow=True, timeout=3600):
        """Shut down (slow: innodb_fast_shutdown=0) unless signal_shutdown()
        already started it; wait for it; return seconds taken."""
        if not self.proc:
            return 0.0
        if self.shutdown_started is None:
            # the setting may be left from prepare_slow_shutdown(): say it
            self.query(f"SET GLOBAL innodb_fast_shutdown={0 if slow else 1}")
            self.signal_shutdown()
        t0 = self.shutdown_started
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise ServerError(f"shutdown did not finish in {timeout}s")
        self.proc = None
        self.shutdown_started = None
        self.disconnect()
        return time.time() - t0

    def shutdown_status(self):
        """What a slow shutdown under way has logged: its last 'to purge N
        transactions' (None before the first)."""
        try:
            with open(self.errlog, errors="replace") as f:
                f.seek(self.log_mark)
                found = BACKLOG_RE.findall(f.read())
        except OSError:
            return None
        return f"to purge {int(found[-1]):,} transactions" if found else None

    def kill(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        self.proc = None
        self.disconnect()

    def backlog(self):
        """The purge backlog that the last shutdown logged."""
        return self.shutdown_log()["to_purge"]

    def shutdown_log(self):
        """The last shutdown as its error log tells it (parse_shutdown())."""
        with open(self.errlog, errors="replace") as f:
            f.seek(self.log_mark)
            return parse_shutdown(f.read())


def sysbench_quoted(value):
    """value as a line of sysbench's --config-file gives it back: that file
    splits an unquoted value at white space, groups a value that begins
    with a double or single quote up to the next one, and knows no escapes.
    ValueError for a value it cannot hold (white space and both quotes)."""
    if value and not re.search(r"\s", value) and value[0] not in "'\"":
        return value
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    raise ValueError("sysbench's --config-file cannot hold a password with white space "
                     "and both quote characters")


class Conn:
    """How the clients reach a server: its socket, or host and port; the
    user and password; the schema the harness works in (created and
    dropped by it)."""

    def __init__(self, socket=None, host=None, port=None, user="root", password=None,
                 db="sbtest"):
        self.socket, self.host, self.port = socket, host, port
        self.user, self.password, self.db = user, password, db
        self.secret_file = None     # sysbench's --config-file with the password

    def sysbench_secret(self):
        """A file of mode 0600 (in a directory of mode 0700) that holds the
        password as sysbench's --config-file reads it, made once, removed
        by forget_secret(): the password never goes on a command line."""
        if self.secret_file is None or not os.path.exists(self.secret_file):
            import atexit
            import tempfile
            d = tempfile.mkdtemp(prefix="purgebench-")
            path = os.path.join(d, "sysbench.cnf")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(f"mysql-password={sysbench_quoted(self.password)}\n")
            self.secret_file = path
            atexit.register(self.forget_secret)
        return self.secret_file

    def forget_secret(self):
        """Remove sysbench's password file (and its directory)."""
        path, self.secret_file = self.secret_file, None
        if path:
            for remove, p in ((os.remove, path), (os.rmdir, os.path.dirname(path))):
                try:
                    remove(p)
                except OSError:
                    pass

    def where(self):
        where = f"{self.host}:{self.port}" if self.host else self.socket
        return f"{where} as {self.user}"

    def sysbench_args(self):
        where = ([f"--mysql-host={self.host}", f"--mysql-port={self.port}"] if self.host
                 else [f"--mysql-socket={self.socket}"])
        return where + [f"--mysql-user={self.user}"] + (
            [f"--config-file={self.sysbench_secret()}"] if self.password else []) + [
            f"--mysql-db={self.db}"]

    def pymysql_kwargs(self):
        kw = dict(host=self.host, port=self.port) if self.host else dict(unix_socket=self.socket)
        return dict(kw, user=self.user, password=self.password or "")

    def client_hint(self, sql_file):
        """The mariadb command line that runs sql_file against the server,
        for a person to type (the password asked, not shown)."""
        where = (f"-h {self.host} -P {self.port}" if self.host else f"-S {self.socket}")
        return f"mariadb {where} -u {self.user}" + (" -p" if self.password else "") + \
            f" < {sql_file}"


PASSWORD_RE = re.compile(r"(--mysql-password=|(?<=\s)-p\s+)\S+")


def redact(text, secrets=(), command=True):
    """A command line or a line of a log as recorded (commands.txt,
    progress.log, the client's output): each of secrets (the password
    itself, spaces and all) out, and in a command line (command) what
    follows a password option."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, "***")
    return PASSWORD_RE.sub(lambda m: m.group(1) + "***", text) if command else text


# the types of information_schema.SYSTEM_VARIABLES whose values are
# strings: SET GLOBAL takes their values quoted, even one that looks like a
# number (a number, an ON, an enum's name, the others take as they are)
STRING_TYPES = re.compile(r"(VAR)?CHAR.*|.*TEXT|.*BLOB", re.I)


def sql_literal(value, kind=None):
    """A global variable's value as SET GLOBAL takes it back, exactly: NULL
    (None) as NULL, a number unquoted unless the variable's type (kind: its
    VARIABLE_TYPE; None: unknown) is a string's, anything else quoted (a
    ';' and quotes in it kept)."""
    if value is None:
        return "NULL"
    if (re.fullmatch(r"-?\d+(\.\d+)?", value)
            and not (kind and STRING_TYPES.fullmatch(kind))):
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


class AttachedServer(Queries):
    """A server that the harness did not start (attach mode): reached over
    TCP or a socket with PyMySQL; never initialised, started or shut down
    here. Has the interface of Server that a run uses: query(), value(),
    status(); its "shutdown" does nothing, and there is no error log to
    read a backlog from (Bench measures the drain after the load)."""
    attached = True
    proc = None
    datadir = None
    errlog = None
    cnf = None

    def __init__(self, conn):
        Queries.__init__(self)
        self.conn = conn
        self.socket = conn          # what sysbench.command() and the sampler take
        self.tcp_port = conn.port

    def running(self):
        return self.db is not None

    def initialize(self):
        pass

    def start(self, timeout=None):
        """Connect (the server runs already)."""
        if self.db is None:
            self.query("SELECT 1")

    def prepare_slow_shutdown(self):
        pass

    def signal_shutdown(self):
        pass

    def shutdown(self, slow=True, timeout=None):
        """Never: the server is not the harness's."""
        return 0.0

    def kill(self):
        """Drop the connections (the server goes on)."""
        self.disconnect()

    def backlog(self):
        return None

    def shutdown_log(self):
        """No shutdown of ours to read."""
        return dict(to_purge=None, log_s=None, lsn=None)

    def shutdown_status(self):
        return None
