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

"""Attach mode's side of bench.Bench (Lent, a part of it): a server that the
harness did not start, lent to it: what the server says of itself, the
global variables an arm may change saved before any is (restore-globals.sql)
and set back at the end, however it comes."""

import json
import os

from . import gotpc, sysbench
from .environment import machine
from .scenarios import ARM_VARS, RECORDED_VARS
from .server import ServerError, sql_literal


class Lent:
    """record_attached(), save_globals() and detach(): a part of bench.Bench
    (its attach, targets, meta, outdir, has_var(), log())."""

    def record_attached(self, t):
        """What the server says of itself: version, recorded variables, all
        its global variables (server-variables.json)."""
        m = t.meta_prefix
        self.meta[m + "server"] = (f"attached: {self.attach.where()} (not started by "
                                   "purgebench, never shut down by it)")
        for v in RECORDED_VARS + ["version_compile_machine", "version_compile_os",
                                  "innodb_undo_tablespaces", "thread_handling"]:
            try:
                self.meta[f"{m}@@{v}"] = t.server.value(f"SELECT @@{v}")
            except ServerError:
                pass
        variables = dict(t.server.query("SHOW GLOBAL VARIABLES"))
        with open(os.path.join(self.outdir, "server-variables.json"), "w") as f:
            json.dump(variables, f, indent=1, sort_keys=True)
        self.meta[m + "build flavour"] = "unknown (attached): see @@version_comment"
        self.meta[m + "my.cnf"] = ("the server's own; every global variable as found: "
                                   "server-variables.json")
        self.meta["backlog measure"] = (
            "attach mode, no slow shutdown: after the load stops, the history is sampled "
            f"every {self.DRAIN_EVERY} s until it is under the target and until it is zero "
            "(at most "
            f"--drain-timeout {self.args.drain_timeout} s)")
        if "sysbench" not in self.meta:
            self.meta["sysbench"] = sysbench.version()
            self.meta["machine"] = json.dumps(dict(machine(), note="the harness's machine; "
                                                   "the server may run elsewhere"))

    def changeable(self, t):
        """The global variables that this invocation's arms may set."""
        names = list(ARM_VARS)
        if self.args.switch:
            names.append(self.args.switch[0])
        return [n for n in names if self.has_var(t, n)]

    def save_globals(self, t):
        """restore-globals.sql: SET GLOBAL of each variable an arm may
        change, to its value now; written before any is changed, run by
        detach() (also after Ctrl-C or a failed run), and by hand if the
        harness dies (the command is printed now)."""
        lines, self.saved_globals = [], {}
        for name in self.changeable(t):
            # as it is: NULL as None, a ';' or a quote kept; its type says
            # whether SET GLOBAL takes it quoted
            rows = t.server.query(f"SELECT @@GLOBAL.{name}", raw=True)
            value = rows[0][0] if rows else None
            kinds = t.server.query("SELECT VARIABLE_TYPE FROM information_schema."
                                   f"SYSTEM_VARIABLES WHERE VARIABLE_NAME='{name.upper()}'")
            self.saved_globals[name] = literal = sql_literal(
                value, kinds[0][0] if kinds and kinds[0] else None)
            lines.append(f"SET GLOBAL {name}={literal};")
        self.restore_file = os.path.join(self.outdir, "restore-globals.sql")
        with open(self.restore_file, "w") as f:
            f.write("-- purgebench: the global variables it may change, as it found them\n"
                    + "\n".join(lines) + "\n")
        self.log(f"purgebench: the server's settings as found are in {self.restore_file}; "
                 f"if purgebench dies before it restores them, run:\n  "
                 f"{self.attach.client_hint(self.restore_file)}")

    def detach(self):
        """The end of attach mode, however it came: restore the global
        variables, drop the harness's schema, close the connection. The
        server runs on."""
        t = self.targets[0]
        if t.server is None:
            return
        if getattr(self, "saved_globals", None) is None and not self.schema_created:
            t.server.kill()         # nothing changed yet (it may not even have answered)
            return
        failed = []
        try:
            if not t.running():
                t.server.start()
            for name, literal in getattr(self, "saved_globals", {}).items():
                try:
                    t.server.query(f"SET GLOBAL {name}={literal}", split=False)
                except ServerError as e:
                    failed.append(f"{name}: {e}")
            if self.schema_created:
                t.server.query(f"DROP DATABASE IF EXISTS {self.attach.db}; "
                               f"DROP DATABASE IF EXISTS {gotpc.db_of(self.attach)}")
        except ServerError as e:
            failed.append(str(e))
        finally:
            t.server.kill()
        if failed:
            self.log("purgebench: could not restore the server's settings: "
                     + "; ".join(failed) + "\n  run: "
                     + self.attach.client_hint(self.restore_file))
        elif getattr(self, "restore_file", None):
            self.log(f"purgebench: the server's global variables are restored "
                     f"({os.path.basename(self.restore_file)}); schema {self.attach.db} "
                     "dropped; the server runs on")
