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

"""purgebench --help says what the code does: a scenario option's help
names exactly the scenarios that use it (the registry's), and the
defaults it names are those of the scenarios' scales."""

import argparse
import io
import os
import re
import sys
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from purgebench import options, scenarios  # noqa: E402


def helps():
    """{option: its help text, one line} as parse_args() builds it."""
    seen = {}
    real = argparse.ArgumentParser.parse_args

    def capture(ap, argv=None, namespace=None):
        for act in ap._actions:
            for opt in act.option_strings:
                seen[opt] = " ".join((act.help or "").split()).replace("%%", "%")
        return real(ap, argv, namespace)
    with mock.patch.object(argparse.ArgumentParser, "parse_args", capture):
        options.parse_args(["--dry-run"])
    return seen


def named(text):
    """The scenario names that a help text mentions, as words."""
    return {n for n in scenarios.SCENARIOS
            if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text)}


class HelpTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.help = helps()

    def test_a_scenario_option_names_exactly_its_users(self):
        for opt, users in options.OPTION_USERS.items():
            with self.subTest(option=opt):
                self.assertEqual(set(users), named(self.help[opt]), self.help[opt])

    def test_options_of_one_scenario_name_it(self):
        for sc in scenarios.REGISTRY.values():
            for opt in sc.own_options:
                with self.subTest(option=opt):
                    self.assertTrue(self.help[opt].startswith(sc.name + ":"), self.help[opt])

    def test_defaults_are_the_scales(self):
        h = self.help
        self.assertIn("backlog-vs-lag 256", h["--threads"])
        self.assertIn("purge-capacity 16 (--full 64)", h["--threads"])
        self.assertIn("backlog-vs-lag 10000 (--full 10000,100000,500000)", h["--lags"])
        self.assertIn("default 2 (--full 10)", h["--warehouses"])
        self.assertIn("default 30 (--full 300)", h["--hold"])
        for sc in options.OPTION_USERS["--threads"]:
            small = scenarios.REGISTRY[sc].scale["threads"][0]
            self.assertIn(f"{sc} {small}", h["--threads"])

    def test_the_stale_wordings_are_gone(self):
        h = self.help
        # --threads once named two scenarios of six, --lags two of five
        self.assertNotIn("for backlog-vs-lag and purge-capacity", h["--threads"])
        self.assertNotIn("for backlog-vs-lag and insert-benchmark", h["--lags"])
        # the default label differs in attach mode; --switch's limit there
        self.assertIn("in attach mode attached", h["--label"])
        self.assertIn("--allow-switch VAR", h["--switch"])
        self.assertIn("innodb_purge_*", h["--allow-switch"])
        # every --time meaning a scenario gives it
        for sc in ("redo-per-trx", "thread-sweep", "purge-capacity", "insert-benchmark",
                   "snapshot-release"):
            self.assertIn(sc, h["--time"])

    def test_help_prints(self):
        out = io.StringIO()
        with mock.patch("sys.stdout", out), self.assertRaises(SystemExit) as e:
            options.parse_args(["--help"])
        self.assertEqual(0, e.exception.code)
        self.assertIn("--allow-switch VAR", out.getvalue())


if __name__ == "__main__":
    unittest.main()
