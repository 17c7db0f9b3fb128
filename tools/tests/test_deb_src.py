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

"""Tests of tools/deb-src (BUILD/setup's deb-src entry) on toy apt dirs."""

import os
import subprocess
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEB_SRC = os.path.join(TOOLS, 'deb-src')
KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg'

# deb822 as Debian 12 installs it; the mirrors are placeholders
DEBIAN_SOURCES = f"""Types: deb
URIs: http://mirror.invalid/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: {KEYRING}

Types: deb
URIs: http://mirror.invalid/debian-security
Suites: bookworm-security
Components: main
Signed-By: {KEYRING}
"""


class DebSrcTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        os.mkdir(os.path.join(self.dir, 'sources.list.d'))

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        with open(os.path.join(self.dir, name), 'w') as f:
            f.write(text)

    def run_tool(self, cmd):
        return subprocess.run([DEB_SRC, cmd, self.dir], capture_output=True,
                              text=True)

    def stanzas(self, text):
        return [s for s in text.split('\n\n') if s.strip()]

    def test_derives_deb_src_from_deb822(self):
        self.write('sources.list.d/debian.sources', DEBIAN_SOURCES)
        self.assertEqual(self.run_tool('has').returncode, 1)
        r = self.run_tool('derive')
        self.assertEqual(r.returncode, 0, r.stderr)
        got = self.stanzas(r.stdout)
        self.assertEqual(len(got), 2)
        for s in got:
            self.assertTrue(s.startswith('Types: deb-src\n'), s)
        self.assertIn('URIs: http://mirror.invalid/debian-security', got[1])
        self.assertIn('Suites: bookworm bookworm-updates', got[0])

    def test_has_without_sources_list(self):
        # Debian 12 has no /etc/apt/sources.list: a missing file must not
        # hide the entry found in sources.list.d (it once made setup derive
        # the file again at every run, each time doubling it)
        self.write('sources.list.d/debian.sources', DEBIAN_SOURCES)
        self.write('sources.list.d/purgelab-deb-src.sources',
                   self.run_tool('derive').stdout)
        self.assertEqual(self.run_tool('has').returncode, 0)

    def test_derive_ignores_its_own_file(self):
        self.write('sources.list.d/debian.sources', DEBIAN_SOURCES)
        first = self.run_tool('derive').stdout
        # what the doubling bug left behind
        self.write('sources.list.d/purgelab-deb-src.sources', first + first)
        self.assertEqual(self.run_tool('derive').stdout, first)

    def test_duplicates_listed_once(self):
        self.write('sources.list.d/debian.sources', DEBIAN_SOURCES)
        self.write('sources.list.d/copy.sources', DEBIAN_SOURCES)
        self.assertEqual(len(self.stanzas(self.run_tool('derive').stdout)), 2)

    def test_files_apt_ignores_do_not_count(self):
        self.write('sources.list.d/debian.sources', DEBIAN_SOURCES)
        self.write('sources.list.d/old.sources.disabled',
                   DEBIAN_SOURCES.replace('Types: deb', 'Types: deb-src'))
        self.assertEqual(self.run_tool('has').returncode, 1)

    def test_deb_src_only_stanza_is_not_a_deb_entry(self):
        self.write('sources.list.d/src.sources',
                   'Types: deb-src\nURIs: http://mirror.invalid/debian\n'
                   f'Suites: bookworm\nComponents: main\nSigned-By: {KEYRING}\n')
        self.assertEqual(self.run_tool('has').returncode, 0)
        self.assertEqual(self.run_tool('derive').returncode, 1)

    def test_one_line_sources_list(self):
        self.write('sources.list',
                   '# comment\n'
                   'deb [arch=amd64] http://mirror.invalid/debian bookworm main contrib\n')
        r = self.run_tool('derive')
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.stanzas(r.stdout), [
            'Types: deb-src\nURIs: http://mirror.invalid/debian\n'
            'Suites: bookworm\nComponents: main contrib'])

    def test_nothing_to_derive_is_a_clear_error(self):
        self.write('sources.list.d/other.sources',
                   'Types: deb\nURIs: http://mirror.invalid/other\n'
                   'Suites: stable\nComponents: main\n')
        r = self.run_tool('derive')
        self.assertEqual(r.returncode, 1)
        self.assertIn("found no Debian 'deb' entry", r.stderr)
        self.assertEqual(r.stdout, '')

    def test_usage(self):
        r = subprocess.run([DEB_SRC], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn('usage', r.stderr)


if __name__ == '__main__':
    unittest.main()
