# Copyright (c) 2026, purgelab developers. GPLv2 (see COPYING).
"""Every harness module imports on its own, in a fresh interpreter: no
import cycle hides behind the order in which __main__ imports them."""
import os
import subprocess
import sys
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(TOOLS, "purgebench")


class EachModuleImportsAlone(unittest.TestCase):
    def test_each_module(self):
        modules = sorted(f[:-3] for f in os.listdir(PKG)
                         if f.endswith(".py") and f != "__main__.py")
        self.assertIn("options", modules)
        for m in modules:
            with self.subTest(module=m):
                r = subprocess.run([sys.executable, "-c", "import purgebench." + m],
                                   cwd=TOOLS, capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr[-2000:])


if __name__ == "__main__":
    unittest.main()
