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

"""What environment.json records of the machine and of each server: the
machine, the git commit of the tree that built a server, how it was
built, its my.cnf's settings."""

import datetime
import os
import platform
import subprocess

from .scenarios import STOCK_MARKER


def machine():
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            mem = f.readline().split(":", 1)[1].strip()
    except OSError:
        pass
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    disk = subprocess.run(["df", "-h", "."], stdout=subprocess.PIPE, text=True).stdout
    return {"cores": os.cpu_count(), "cpu": cpu, "memory": mem,
            "kernel": platform.release(), "disk": disk.splitlines()[-1] if disk else ""}


def tree_commit(path):
    """The git commit of the work tree that holds path (a server binary in
    its build directory), with '+ uncommitted changes' when the tree
    differs from it, and the binary's time against the commit's: what
    built the server, as far as the tree can say now. None outside git."""
    d = path if os.path.isdir(path) else os.path.dirname(path)
    try:
        head = subprocess.run(["git", "-C", d, "log", "-1", "--format=%H %ct"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              timeout=30)
        dirty = subprocess.run(["git", "-C", d, "status", "--porcelain",
                                "--untracked-files=no"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if head.returncode != 0 or not head.stdout.strip():
        return None
    commit, when = head.stdout.split()
    out = commit + (" + uncommitted changes" if dirty.stdout.strip() else "")
    if os.path.isfile(path):
        built = os.path.getmtime(path)
        stamp = datetime.datetime.fromtimestamp(built).strftime("%Y-%m-%d %H:%M")
        out += (f"; binary built {stamp}, "
                + ("after" if built >= int(when) else "BEFORE") + " that commit")
    return out


def flavour(inst):
    """How the server was built: a build tree's cmake settings, Debian's
    packages unpacked by tools/install-stock-server, or neither."""
    cache = os.path.join(inst.basedir, "CMakeCache.txt")
    if os.path.exists(cache):
        keep = ("CMAKE_BUILD_TYPE", "BUILD_CONFIG", "WITH_JEMALLOC",
                "CMAKE_CXX_FLAGS_RELWITHDEBINFO", "COMPILATION_COMMENT")
        with open(cache) as f:
            vals = [ln.strip() for ln in f if ln.split(":", 1)[0] in keep]
        return "; ".join(vals)
    marker = os.path.join(os.path.dirname(inst.basedir), STOCK_MARKER)
    if os.path.exists(marker):
        with open(marker) as f:
            pkgs = [ln.split()[0] for ln in f if ln.strip()]
        return f"Debian packages {', '.join(pkgs)} (unpacked by tools/install-stock-server)"
    return "installed binaries (not a build tree)"


def cnf_settings(path):
    """A my.cnf's settings in one line, without the paths of this run
    (datadir, socket, log-error, pid-file)."""
    skip = ("datadir", "socket", "log-error", "log_error", "pid-file", "pid_file")
    try:
        with open(path) as f:
            lines = [ln.strip() for ln in f]
    except OSError:
        return "-"
    return "; ".join(ln for ln in lines if ln and not ln.startswith(("[", "#"))
                     and ln.split("=", 1)[0] not in skip)
