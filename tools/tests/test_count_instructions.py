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


"""tools/count-instructions: wrong input gets a clear error before any
server starts (a full count runs servers under valgrind for minutes and is
not part of the tests)."""

import os
import subprocess
import tempfile
import unittest

TOOL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    "count-instructions")


def run(*args):
    return subprocess.run([TOOL, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=60)


class CountInstructionsInput(unittest.TestCase):
    def test_help(self):
        r = run("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("dispatch_command", r.stdout)
        self.assertIn("--events", r.stdout)

    def test_no_server(self):
        r = run()
        self.assertEqual(r.returncode, 2)
        self.assertIn("NAME=BUILD_DIR", r.stderr)

    def test_bad_count(self):
        for opt in ("--events", "--threads", "--rows"):
            r = run(opt, "0", "fork=build")
            self.assertEqual(r.returncode, 2, opt)
            self.assertIn("'0' is not a positive count", r.stderr)

    def test_unknown_option(self):
        r = run("--evnts", "5", "fork=build")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown argument '--evnts'", r.stderr)

    def test_missing_build(self):
        with tempfile.TemporaryDirectory() as d:
            r = run(f"fork={d}")
        self.assertEqual(r.returncode, 1)
        self.assertIn("release/sql/mariadbd", r.stderr)


if __name__ == "__main__":
    unittest.main()
