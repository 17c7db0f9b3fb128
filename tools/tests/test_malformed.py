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

"""Malformed invocations, as a new user or a careless script would type
them: each is refused with a message that names the fix, by --check-args
(what BUILD/run asks before set-up and the build) and by a run itself,
before anything is set up, built, started or written; never a Python
traceback."""

import io
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import bench, options  # noqa: E402
import test_fail_early  # noqa: E402

# {exe}: an executable file, {noexec}: a file that is not, {tmp}: a
# directory; {userfile}: an option file with a user only, {barepw}: one whose
# password line has no value (the mariadb client would ask)
MALFORMED = [
    # --option: the keys the harness owns, newlines, empty and bad values
    (["--option", "datadir=/var/lib/mysql"], "the harness sets datadir itself; the harness "
                                             "keeps each server's files under --out DIR"),
    (["--option", "log-error=/etc/passwd"], "the harness sets log-error itself"),
    (["--option", "socket=/tmp/x.sock"], "sets socket itself; the harness's server listens"),
    (["--option", "user=mysql"], "sets user itself; the server runs as the harness's user"),
    (["--option", "port=3306"], "sets port itself"),
    (["--option", "bind-address=0.0.0.0"], "sets bind-address itself"),
    (["--option", "pid-file=/tmp/p.pid"], "sets pid-file itself"),
    (["--option", "basedir=/usr"], "sets basedir itself; use --basedir DIR"),
    (["--option", "skip-networking=0"], "sets skip-networking itself"),
    (["--option", "loose-datadir=/x"], "sets datadir itself"),
    (["--option", "datad=/x"], "sets datadir itself"),      # mariadbd takes a prefix
    (["--option", "innodb_data_home_dir=/srv"], "sets innodb-data-home-dir itself"),
    (["--option", "a=1\n[client]\nuser=x"], "a newline; give one VAR=VALUE per --option"),
    (["--option", "innodb_max_purge_lag="], "an empty value"),
    (["--option", "innodb_max_purge_lag=x"], "innodb_max_purge_lag takes a whole number"),
    (["--option", "innodb_buffer_pool_size=lots"], "innodb_buffer_pool_size takes a size"),
    (["--option", "innodb_purge_throttle=fast"], "takes formula or adaptive"),
    (["--option", "innodb_undo_log_compact_init=maybe"], "takes ON or OFF"),
    (["--option", "innodb_purge_threads=4 # four"], "a '#' starts a comment in my.cnf"),
    (["--option", "foo"], "give VAR=VALUE"),
    # --server-list and the binaries, checked before set-up and the build
    (["--server-list", "a=/nonexistent,b=/nonexistent"],
     "/nonexistent: no such file or directory"),
    (["--server-list", "a={noexec},b={exe}"], "not executable"),
    (["--server-list", "a={exe},,b={exe}"], "'': give LABEL=PATH"),
    (["--server-list", "a={exe}"], "give two or more servers"),
    (["--basedir", "/no/such/dir"], "--basedir /no/such/dir: no such directory"),
    # attach mode: empty or odd connection options
    (["--host", ""], "--host '': empty; give the server's host name"),
    (["--socket", ""], "--socket '': empty"),
    (["--host", "db1", "--user", ""], "--user '': empty"),
    (["--host", "db 1"], "--host 'db 1': a space in a host name"),
    (["--host", "db1", "--schema", ""], "--schema '': empty"),
    (["--host", "db1", "--password-file", ""], "--password-file '': empty"),
    (["--host", "db1", "--defaults-extra-file", "/no/such.cnf"],
     "--defaults-extra-file: /no/such.cnf: No such file or directory"),
    (["--defaults-extra-file", "{userfile}"], "--defaults-extra-file: only in attach mode"),
    (["--host", "db1", "--defaults-extra-file", "{barepw}"], "'password' without a value"),
    (["thread-sweep", "--host", "db1", "--switch", "read_only=ON,OFF"],
     "add --allow-switch read_only"),
    (["thread-sweep", "--host", "db1", "--switch", "innodb_purge_throttle=formula,adaptive",
      "--allow-switch", "max_connections"],
     "--allow-switch max_connections: --switch sets innodb_purge_throttle"),
    (["--allow-switch", "read_only"], "--allow-switch: only in attach mode"),
    # empty and repeated entries
    (["--arms", ",,,"], "--arms ',,,': an empty entry"),
    (["--arms", "adaptive,adaptive"], "adaptive is given twice"),
    (["backlog-vs-lag", "--lags", "10,10"], "the lag 10 is given twice"),
    (["backlog-vs-lag", "--lags", "10,,20"], "'10,,20': an empty entry"),
    (["backlog-vs-lag", "backlog-vs-lag"], "scenario backlog-vs-lag is given twice"),
    (["all", "tpcc"], "'all' runs every scenario: give it alone"),
    (["thread-sweep", "--switch", "innodb_undo_log_compact_init=ON,,OFF"], "an empty value"),
    (["snapshot-release", "--release-forms", "stop,"], "give continue, stop or continue,stop"),
    (["purge-capacity", "--rates", "100,,200"], "'100,,200': an empty entry"),
    (["--sweep-threads", "4,4", "thread-sweep"], "distinct thread counts"),
    # upper bounds
    (["backlog-vs-lag", "--time", "100000"], "argument --time: '100000': at most 86,400"),
    (["backlog-vs-lag", "--threads", "100000"], "argument --threads: '100000': at most 65,536"),
    (["tpcc", "--warehouses", "5000"], "argument --warehouses: '5000': at most 1,000"),
    (["--repeats", "1000"], "argument --repeats: '1000': at most 100"),
    (["backlog-vs-lag", "--lags", "5000000000"], "innodb_max_purge_lag is at most"),
    # no abbreviations: BUILD/run and purgebench read the same options
    (["--tim", "5"], "unrecognized arguments: --tim"),
    (["--hos", "db1"], "unrecognized arguments: --hos"),
    (["--dry", "backlog-vs-lag"], "unrecognized arguments: --dry"),
    # odd strings that once ended in a traceback, or were taken as a default
    (["--sb-option=--"], "--sb-option --: '--' is not a value; give KEY=VALUE"),
    (["--host=--"], "--host --: '--' is not a value"),
    (["--sb-option", "mysql-password=x"], "the harness sets --mysql-password itself"),
    (["--workload", ""], "--workload '': empty"),
    (["--server", ""], "--server '': empty"),
    (["--out", ""], "--out '': empty"),
    (["--option", "="], "give VAR=VALUE"),
    (["--switch", "=", "thread-sweep"], "give VAR=V1,V2"),
]


def answer(argv):
    """(exit status, stderr, stdout) of purgebench main(argv), with every way
    to set up or start something made to fail the test."""
    err, out = io.StringIO(), io.StringIO()
    with mock.patch("sys.stderr", err), mock.patch("sys.stdout", out), \
            mock.patch.object(bench, "Bench", side_effect=AssertionError("set up")), \
            mock.patch.object(bench.sysbench, "require",
                              side_effect=AssertionError("sysbench asked for")):
        try:
            rc = bench.main(argv)
        except SystemExit as e:
            rc = e.code
    return rc, err.getvalue(), out.getvalue()


class MalformedTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="purgebench-malformed-")
        self.addCleanup(shutil.rmtree, self.tmp)
        # BUILD/run's own build: not there before it, and not asked for
        self.files = {"tmp": self.tmp, "build": options.build_dir()}
        for name, mode, text in (("exe", 0o755, "#!/bin/sh\n"), ("noexec", 0o644, "x\n"),
                                 ("userfile", 0o600, "[client]\nuser=bench\n"),
                                 ("barepw", 0o600, "[client]\nuser=bench\npassword\n")):
            path = self.files[name] = os.path.join(self.tmp, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, mode)
        # a run writes results/ under the directory it is called from
        self.cwd = os.path.join(self.tmp, "cwd")
        os.mkdir(self.cwd)
        old = os.getcwd()
        os.chdir(self.cwd)
        self.addCleanup(os.chdir, old)

    def test_at_least_forty_malformed_invocations(self):
        self.assertGreaterEqual(len(MALFORMED), 40)
        self.assertEqual(len(MALFORMED), len({tuple(argv) for argv, _ in MALFORMED}))

    def test_each_is_refused_before_set_up_with_its_message(self):
        for argv, says in MALFORMED:
            argv = [x.format(**self.files) for x in argv]
            for how in (["--check-args"], []):
                with self.subTest(argv=argv, how=how):
                    rc, err, out = answer(how + argv)
                    self.assertEqual(2, rc, err)
                    self.assertIn(says, err)
                    self.assertTrue(err.splitlines()[-1].startswith("purgebench: error: "),
                                    err)
                    self.assertNotIn("Traceback", err)
                    self.assertEqual("", out)       # no mode word: BUILD/run stops
        self.assertEqual([], os.listdir(self.cwd))  # no results directory

    def test_a_server_list_basedir_is_checked_before_set_up(self):
        # (a run leaves it to the server's start, as it did)
        rc, err, out = answer(["--check-args", "--server-list",
                               "a={exe},b={exe}:/no/base".format(**self.files)])
        self.assertEqual(2, rc)
        self.assertIn("--server-list b=...:/no/base: BASEDIR is not a directory", err)
        self.assertEqual("", out)

    def test_the_good_ones_beside_them_pass(self):
        for argv, mode in ((["--option", "innodb_max_purge_lag=10000"], "start"),
                           (["--option", "innodb_buffer_pool_size=4G"], "start"),
                           (["--option", "userstat=ON"], "start"),
                           (["--option", "innodb_purge_throttle=formula"], "start"),
                           (["--option", "loose-innodb_purge_drain_rsegs=4"], "start"),
                           (["--server-list", "a={exe},b={exe}:{tmp}"], "start"),
                           (["--server-list", "a={build},b={exe}"], "start"),
                           (["backlog-vs-lag", "--lags", "10,20", "--time", "86400"], "start"),
                           (["thread-sweep", "--host", "db1", "--switch",
                             "innodb_purge_throttle=formula,adaptive"], "attach"),
                           (["thread-sweep", "--host", "db1", "--switch", "read_only=ON,OFF",
                             "--allow-switch", "read_only"], "attach"),
                           (["--socket", "/run/mysqld/mysqld.sock"], "attach"),
                           (["--dry-run"], "dry-run")):
            argv = [x.format(**self.files) for x in argv]
            with self.subTest(argv=argv):
                rc, err, out = answer(["--check-args"] + argv)
                self.assertEqual(0, rc, err)
                self.assertEqual(mode + "\n", out)


class BuildRunAgreesTest(unittest.TestCase):
    """BUILD/run does what purgebench reads from the options (its
    --check-args says start, attach or dry-run): in a copy of the tree whose
    BUILD/setup and BUILD/build only say that they ran."""
    setUp = test_fail_early.BuildRunTest.setUp
    run_it = test_fail_early.BuildRunTest.run_it

    def test_an_abbreviation_is_refused_not_read_as_attach_mode(self):
        rc, out, _ = self.run_it("--hos", "db1")
        self.assertEqual(2, rc, out)
        self.assertIn("unrecognized arguments: --hos", out)
        self.assertNotIn("FAKE-", out)

    def test_a_dry_run_sets_up_and_builds_nothing(self):
        rc, out, _ = self.run_it("--dry-run")
        self.assertEqual(0, rc, out)
        self.assertIn("purgebench: dry run: nothing is built", out)
        self.assertNotIn("FAKE-", out)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "results")))

    def test_attach_mode_from_an_option_file_builds_nothing(self):
        cnf = os.path.join(self.tmp, "client.cnf")
        with open(cnf, "w") as f:
            f.write("[client]\nhost=127.0.0.1\nport=1\n")
        rc, out, _ = self.run_it("backlog-vs-lag", "--defaults-extra-file", cnf,
                                 "--out", os.path.join(self.tmp, "r"))
        self.assertIn("FAKE-SETUP", out)
        self.assertNotIn("FAKE-BUILD", out)
        self.assertIn("cannot connect to 127.0.0.1:1 as root", out)
        self.assertEqual(1, rc)


if __name__ == "__main__":
    unittest.main()
