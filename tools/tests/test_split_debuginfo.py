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

"""Tests of tools/split-debuginfo on a toy tarball (a program, a shared
library, its symlink, a static archive, a script); tools/test-debuginfo
checks the real one."""

import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPLIT = os.path.join(TOOLS, "split-debuginfo")

PROG = r"""
#include <stdio.h>
int purgelab_toy_function(int n) { return n * 7; }
int main(void) { printf("toy %d\n", purgelab_toy_function(6)); return 0; }
"""
LIB = "int purgelab_toy_lib(int n) { return n + 1; }\n"


def run(*cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, **kw)


def members(tarball):
    with tarfile.open(tarball) as t:
        return [(m.name, m.type, m.mode, m.uid, m.linkname) for m in t]


@unittest.skipUnless(shutil.which("gcc") and shutil.which("objcopy")
                     and shutil.which("gdb"), "needs gcc, binutils and gdb")
class SplitDebuginfoTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.tmp.name
        self.top = os.path.join(t, "tree", "toy-1.0")
        for d in ("bin", "lib"):
            os.makedirs(os.path.join(self.top, d))
        with open(os.path.join(t, "prog.c"), "w") as f:
            f.write(PROG)
        with open(os.path.join(t, "lib.c"), "w") as f:
            f.write(LIB)
        self.tarball = os.path.join(t, "toy.tar.gz")
        self.debug_tarball = os.path.join(t, "toy-debuginfo.tar.gz")

    def tearDown(self):
        self.tmp.cleanup()

    def build(self, build_id=True):
        t, top = self.tmp.name, self.top
        bid = "-Wl,--build-id" if build_id else "-Wl,--build-id=none"
        subprocess.run(["gcc", "-g", "-O1", bid, "-o", f"{top}/bin/toy", f"{t}/prog.c"], check=True)
        subprocess.run(["gcc", "-g", "-O1", "-shared", "-fPIC", "-Wl,--build-id",
                        "-o", f"{top}/lib/libtoy.so.1", f"{t}/lib.c"], check=True)
        os.symlink("libtoy.so.1", f"{top}/lib/libtoy.so")
        subprocess.run(["gcc", "-g", "-c", "-o", f"{t}/lib.o", f"{t}/lib.c"], check=True)
        subprocess.run(["ar", "rcs", f"{top}/lib/libtoy.a", f"{t}/lib.o"], check=True)
        with open(f"{top}/bin/toy-script", "w") as f:
            f.write("#!/bin/sh\necho script\n")
        os.chmod(f"{top}/bin/toy-script", 0o755)
        with tarfile.open(self.tarball, "w:gz") as tar:
            tar.add(top, arcname="toy-1.0")

    def split(self):
        return run(SPLIT, self.tarball, self.debug_tarball)

    def gdb(self, binary, debug_dir):
        return run("gdb", "-nx", "-batch", "-iex", "set debuginfod enabled off",
                   "-iex", "set verbose on", "-iex", f"set debug-file-directory {debug_dir}",
                   "-ex", "info line purgelab_toy_function", binary,
                   env=dict(os.environ, DEBUGINFOD_URLS="")).stdout

    def test_split(self):
        self.build()
        before = members(self.tarball)
        p = self.split()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertRegex(p.stdout, r"2 ELF files \(2 build-ids\), 1 static archives")
        self.assertEqual(members(self.tarball), before)   # names, types, modes
        out = os.path.join(self.tmp.name, "out")
        with tarfile.open(self.tarball) as t:
            t.extractall(os.path.join(out, "tarball"))
        with tarfile.open(self.debug_tarball) as t:
            names = t.getnames()
            self.assertTrue(all(m.uid == 0 and m.uname == "root" for m in t))
            t.extractall(os.path.join(out, "debuginfo"))
        debug_files = [n for n in names if n.endswith(".debug")]
        self.assertEqual(len(debug_files), 2)
        for n in debug_files:
            self.assertRegex(n, r"^usr/lib/debug/\.build-id/[0-9a-f]{2}/[0-9a-f]{38}\.debug$")
        toy = os.path.join(out, "tarball", "toy-1.0", "bin", "toy")
        self.assertEqual(run(toy).stdout, "toy 42\n")
        self.assertEqual(run(os.path.join(out, "tarball", "toy-1.0", "bin", "toy-script")).stdout,
                         "script\n")
        for f in ("bin/toy", "lib/libtoy.so.1", "lib/libtoy.a"):
            secs = run("readelf", "-S", "--wide", os.path.join(out, "tarball", "toy-1.0", f)).stdout
            self.assertNotIn(".debug_info", secs, f)
        debug_dir = os.path.join(out, "debuginfo", "usr", "lib", "debug")
        found = self.gdb(toy, debug_dir)
        self.assertRegex(found, r'Line \d+ of "\S*prog\.c"')
        self.assertRegex(found, r"Reading symbols from \S*/\.build-id/")
        empty = os.path.join(out, "empty")
        os.mkdir(empty)
        missing = self.gdb(toy, empty)
        self.assertIn("No debugging symbols found", missing)
        self.assertNotIn("prog.c", missing)

    def test_split_twice_is_refused(self):
        self.build()
        self.assertEqual(self.split().returncode, 0)
        stripped = members(self.tarball)
        with open(self.debug_tarball, "rb") as f:
            debug = f.read()
        p = self.split()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("was split before", p.stdout)
        self.assertEqual(members(self.tarball), stripped)
        with open(self.debug_tarball, "rb") as f:
            self.assertEqual(f.read(), debug)
        self.assertEqual(sorted(os.listdir(self.tmp.name)),
                         ["lib.c", "lib.o", "prog.c", "toy-debuginfo.tar.gz", "toy.tar.gz", "tree"])

    def test_no_build_id_is_refused(self):
        self.build(build_id=False)
        with open(self.tarball, "rb") as f:
            original = f.read()
        p = self.split()
        self.assertNotEqual(p.returncode, 0)
        self.assertTrue(re.search(r"toy-1\.0/bin/toy has no GNU build-id", p.stdout), p.stdout)
        with open(self.tarball, "rb") as f:
            self.assertEqual(f.read(), original)
        self.assertFalse(os.path.exists(self.debug_tarball))


if __name__ == "__main__":
    unittest.main()
