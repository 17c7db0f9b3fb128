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
        modules = []        # every module, those of subpackages (scenarios/) too
        for d, _, files in os.walk(PKG):
            sub = os.path.relpath(d, PKG).replace(os.sep, ".")
            if "__pycache__" in d:
                continue
            for f in files:
                if f.endswith(".py") and f != "__main__.py":
                    modules.append(f[:-3] if sub == "." else sub if f == "__init__.py"
                                   else f"{sub}.{f[:-3]}")
        modules.sort()
        self.assertIn("options", modules)
        self.assertIn("scenarios.base", modules)
        for m in modules:
            with self.subTest(module=m):
                r = subprocess.run([sys.executable, "-c", "import purgebench." + m],
                                   cwd=TOOLS, capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr[-2000:])


if __name__ == "__main__":
    unittest.main()
