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

"""--workload and --sb-option: which sysbench script a scenario runs, and
the script's own options passed through."""

import glob
import os
import re

SYSBENCH_DIR = "/usr/share/sysbench"
# options the harness sets itself, each with the option that changes it
OWNED = {"tables": "--tables", "table-size": "--rows", "table_size": "--rows",
         "threads": "--threads", "time": "--time", "rate": "--rates",
         "report-interval": None, "percentile": None, "histogram": None,
         "db-ps-mode": None, "mysql-ignore-errors": None}
# options the harness sets by default, which --sb-option may change
DEFAULTS = {"rand-type": "uniform"}
OPTION_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


class WorkloadError(Exception):
    pass


def bundled(directory=SYSBENCH_DIR):
    """The workloads sysbench ships (its Lua scripts, less the shared
    oltp_common), sorted."""
    names = [os.path.basename(p)[:-4] for p in glob.glob(os.path.join(directory, "*.lua"))]
    return sorted(n for n in names if not n.endswith("_common"))


def resolve(spec, directory=SYSBENCH_DIR):
    """A --workload value -> what sysbench is given: a bundled script's name
    as it is, or a Lua file's absolute path. Anything else is an error that
    lists the choices."""
    if spec.endswith(".lua") or os.sep in spec:
        path = os.path.abspath(spec)
        if not os.path.isfile(path):
            raise WorkloadError(f"--workload {spec}: no such Lua file ({path})")
        return path
    names = bundled(directory)
    if spec in names:
        return spec
    choices = ", ".join(names) if names else f"none found in {directory}: is sysbench installed?"
    raise WorkloadError(f"--workload {spec}: unknown workload; choose one of {choices}, "
                        "or give a Lua file (a path ending in .lua)")


def label(workload):
    """How a workload is named in tables and file names: a script's name
    without directory and .lua."""
    base = os.path.basename(workload)
    return base[:-4] if base.endswith(".lua") else base


def sb_option(text):
    """One --sb-option KEY=VALUE (or a bare KEY, a flag) -> '--KEY=VALUE'.
    Options the harness sets itself are refused, naming its own option."""
    key, eq, value = text.lstrip("-").partition("=")
    if not OPTION_RE.fullmatch(key):
        raise WorkloadError(f"--sb-option {text}: give KEY=VALUE, e.g. delete_inserts=10")
    if key in OWNED or key.startswith("mysql-"):
        own = OWNED.get(key)
        raise WorkloadError(f"--sb-option {text}: the harness sets --{key} itself"
                            + (f"; use purgebench's {own}" if own else ""))
    return f"--{key}={value}" if eq else f"--{key}"
