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

"""Scripts under 'set -o pipefail' must not pipe a long output into a
reader that exits early (grep -q, head): the writer then dies of SIGPIPE
(status 141) and the pipe fails although the reader found what it sought.
tools/install-stock-server did so with apt-cache show | grep -q."""

import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# apt-cache show's answer for the pinned version: its Package: line first,
# then more than a pipe buffer (64 KiB) of the rest, as a package with
# several versions and long descriptions gives
FAKE_APT_CACHE = r"""#!/bin/bash
case "$1" in
  show)
    echo "Package: ${2%%=*}"
    echo "Version: ${2#*=}"
    for i in $(seq 1 20000); do echo " a description line $i of the package"; done ;;
  madison) echo " ${2} | ${FAKE_VERSION} | http://example.invalid bookworm/main amd64 Packages" ;;
  *) exit 100 ;;
esac
"""
FAKE_APT_GET = """#!/bin/sh
echo "FAKE apt-get $*" >&2
exit 1
"""


def shell_scripts():
    """The shell scripts of BUILD/ and tools/ (by their #! line)."""
    out = []
    for path in glob.glob(os.path.join(REPO, "BUILD", "*")) + \
            glob.glob(os.path.join(REPO, "tools", "*")):
        if os.path.isfile(path):
            with open(path, errors="replace") as f:
                first = f.readline()
            if first.startswith("#!") and re.search(r"\b(ba)?sh\b", first):
                out.append(path)
    return out


class InstallStockServerTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="stock-pipefail-")
        self.addCleanup(shutil.rmtree, self.tmp)
        # the script as it is, in a tree of its own (it reads cmake/pin.cmake)
        for rel in ("tools/install-stock-server", "cmake/pin.cmake"):
            os.makedirs(os.path.join(self.tmp, "tree", os.path.dirname(rel)), exist_ok=True)
            shutil.copy(os.path.join(REPO, rel), os.path.join(self.tmp, "tree", rel))
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        for name, text in (("apt-cache", FAKE_APT_CACHE), ("apt-get", FAKE_APT_GET),
                           ("dpkg-deb", "#!/bin/sh\nexit 1\n"), ("ldd", "#!/bin/sh\nexit 1\n")):
            with open(os.path.join(self.bin, name), "w") as f:
                f.write(text)
            os.chmod(os.path.join(self.bin, name), 0o755)
        with open(os.path.join(REPO, "cmake", "pin.cmake")) as f:
            self.version = re.search(r'set\(PURGELAB_DEB_VERSION\s+"([^"]+)"', f.read()).group(1)

    def run_script(self):
        env = dict(os.environ, PATH=self.bin + ":" + os.environ["PATH"],
                   PURGELAB_CACHE=os.path.join(self.tmp, "cache"), FAKE_VERSION=self.version)
        return subprocess.run([os.path.join(self.tmp, "tree", "tools", "install-stock-server")],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env=env, timeout=60)

    def test_a_long_apt_cache_answer_is_not_taken_for_unavailable(self):
        # the fake's answer is larger than a pipe buffer: the old check
        # (apt-cache show | grep -q) failed on it every time
        out = subprocess.run([os.path.join(self.bin, "apt-cache"), "show", "x=1"],
                             stdout=subprocess.PIPE).stdout
        self.assertGreater(len(out), 65536)
        for attempt in range(3):
            r = self.run_script()
            self.assertNotIn("is not available", r.stdout)
            # past the check: the download, which the fake apt-get refuses
            self.assertIn("FAKE apt-get -q download mariadb-server-core=" + self.version,
                          r.stdout)
            self.assertIn("apt-get download", r.stdout)
            self.assertEqual(1, r.returncode)

    def test_a_version_not_on_offer_is_still_refused(self):
        with open(os.path.join(self.bin, "apt-cache"), "w") as f:
            f.write(FAKE_APT_CACHE.replace('  show)\n', '  show) exit 100\n'))
        r = self.run_script()
        self.assertIn(f"mariadb-server-core {self.version} (the pin in cmake/pin.cmake) is "
                      "not available", r.stdout)
        self.assertIn(f"they offer: {self.version}", r.stdout)
        self.assertEqual(1, r.returncode)


class NoEarlyExitPipeTest(unittest.TestCase):
    # a pipe into a reader that stops reading before its writer is done
    EARLY = re.compile(r"\|\s*(grep\s+(-\w*[qm]\w*|--quiet|--max-count)|head\b)")

    def test_no_script_pipes_into_a_reader_that_exits_early(self):
        found = []
        for path in shell_scripts():
            with open(path, errors="replace") as f:
                for n, line in enumerate(f, 1):
                    code = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
                    if self.EARLY.search(code):
                        found.append(f"{os.path.relpath(path, REPO)}:{n}: {line.strip()}")
        self.assertEqual([], found)

    def test_the_check_finds_the_old_pattern(self):
        self.assertTrue(self.EARLY.search(
            "if ! apt-cache show \"$p=$v\" 2>/dev/null | grep -q '^Package:'; then"))
        self.assertTrue(self.EARLY.search("dpkg-query -W x | grep -q '^ii'"))
        self.assertTrue(self.EARLY.search("ls | head -1"))
        self.assertFalse(self.EARLY.search("grep -q '^ii' <<<\"$out\""))

    def test_scripts_are_found(self):
        names = {os.path.relpath(p, REPO) for p in shell_scripts()}
        self.assertTrue({"tools/install-stock-server", "BUILD/setup", "BUILD/run"} <= names,
                        names)


if __name__ == "__main__":
    unittest.main()
