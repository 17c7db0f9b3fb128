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

"""Attach mode's --defaults-extra-file: a client option file read as the
mariadb client reads one (its client groups, later lines win, '-' and '_'
alike, quotes and escapes, '#' comments, !include and !includedir), for the
connection's host, port, socket, user and password."""

import glob
import os
import re

# the groups every MariaDB client reads, and the mariadb client's own
GROUPS = ("client", "client-server", "client-mariadb", "mysql", "mariadb-client")
KEYS = ("host", "port", "socket", "user", "password")
ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "r": "\r", "s": " ", "\\": "\\",
           "'": "'", '"': '"'}


class OptionFileError(Exception):
    pass


def _cut_comment(text):
    """text up to a '#' that is not inside quotes."""
    quote, escaped = None, False
    for i, c in enumerate(text):
        if quote:
            if c == quote and not escaped:
                quote = None
            escaped = c == "\\" and not escaped
        elif c in "'\"":
            quote = c
        elif c == "#":
            return text[:i]
    return text


def _unquote(value):
    """A value as the client takes it: surrounding quotes off, escapes
    (\\b \\t \\n \\r \\s \\\\ \\' \\") resolved."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    out, i = [], 0
    while i < len(value):
        c = value[i]
        if c == "\\" and i + 1 < len(value) and value[i + 1] in ESCAPES:
            out.append(ESCAPES[value[i + 1]])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _lines(path, depth=0):
    """(path, line number, line) of path and what it includes."""
    if depth > 10:
        raise OptionFileError(f"{path}: !include nested too deep")
    try:
        st = os.stat(path)
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise OptionFileError(f"{path}: {e.strerror}")
    if st.st_mode & 0o002:
        raise OptionFileError(f"{path} is world-writable: the mariadb client ignores such a "
                              "file (chmod o-w)")
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        m = re.match(r"!include(dir)?\s+(.+)$", s)
        if m:
            target = os.path.join(os.path.dirname(path), os.path.expanduser(m.group(2).strip()))
            files = (sorted(glob.glob(os.path.join(target, "*.cnf"))) if m.group(1)
                     else [target])
            for f in files:
                yield from _lines(f, depth + 1)
            continue
        yield path, n, line


def read(path):
    """{key: value} of KEYS that path's client groups set (the last wins);
    a bare 'password' (the client would ask for it) is an error."""
    out, group = {}, None
    path = os.path.expanduser(path)
    for where, n, line in _lines(path):
        s = line.strip()
        if not s or s[0] in "#;":
            continue
        if s.startswith("["):
            if not s.endswith("]"):
                raise OptionFileError(f"{where}:{n}: a group header without ']': {s}")
            group = s[1:-1].strip().lower()
            continue
        if group not in GROUPS:
            continue
        name, eq, value = _cut_comment(s).partition("=")
        key = re.sub(r"^loose_", "", name.strip().lower().replace("-", "_"))
        if key not in KEYS:
            continue
        if not eq:
            if key == "password":
                raise OptionFileError(f"{where}:{n}: 'password' without a value asks for it, "
                                      "which purgebench cannot: give password=... there, or "
                                      "--password-file F")
            raise OptionFileError(f"{where}:{n}: {key} without a value")
        out[key] = _unquote(value)
    if "port" in out and not re.fullmatch(r"\d{1,5}", out["port"]):
        raise OptionFileError(f"{path}: port={out['port']}: not a port number")
    return out
