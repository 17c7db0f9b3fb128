#!/usr/bin/env python3
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

"""Download a pinned Debian source package's files (tools/fetch-upstream).

  debsource.py fetch --pin FILE --dest DIR [--want orig|debian]

The pin (cmake/pin.cmake, cmake/pin-stock-*.cmake) names the source
package, its Debian version, the Debian release (suite) whose index lists it
and the files' sha256. Two ways to get the files, in this order:

 1. the index: 'apt-get source --download-only PKG=VERSION', through the
    machine's own deb-src entries when they cover the suite, else through a
    private apt directory under the cache whose deb-src entries are derived
    from the machine's Debian 'deb' entries (tools/deb-src derive) with the
    suite replaced (bookworm -> bullseye, bookworm-security ->
    bullseye-security, ...). The system's apt configuration is not changed.
 2. the pool (the fallback), when no index lists the version or apt-get
    fails: the .dsc and the wanted file by their pool path,
    <URI>/pool/main/<m>/<package>/<file> (or pool/updates/main, the security
    archive's layout), under each URI of those entries in turn (apt-helper
    download-file), each file checked against the pin's sha256 before it is
    kept.

Every failure stops with one message that says what was tried.
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOOLS = os.path.dirname(os.path.abspath(__file__))
PIN_RE = re.compile(r'^set\((PURGELAB_[A-Z0-9_]+)\s+"([^"]*)"\)', re.M)
APT_HELPER = "/usr/lib/apt/apt-helper"


class FetchError(Exception):
    pass


class NotFound(FetchError):
    """The server answered that the file does not exist (404)."""


# -- pins --------------------------------------------------------------------
def read_pin(path):
    """The PURGELAB_* values of a pin file, as a dict."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise FetchError(f"cannot read the pin {path}: {e.strerror}")
    pin = dict(PIN_RE.findall(text))
    need = ("PURGELAB_DEB_PACKAGE", "PURGELAB_DEB_VERSION", "PURGELAB_DEB_SUITE",
            "PURGELAB_ORIG_TARBALL", "PURGELAB_ORIG_SHA256")
    missing = [k for k in need if not pin.get(k)]
    if missing:
        raise FetchError(f"the pin {path} lacks {', '.join(missing)}")
    return pin


def wanted(pin, want):
    """[(file name, sha256)] that a fetch must deliver."""
    if want == "orig":
        return [(pin["PURGELAB_ORIG_TARBALL"], pin["PURGELAB_ORIG_SHA256"])]
    if not pin.get("PURGELAB_DEBIAN_TARBALL"):
        raise FetchError("the pin names no Debian packaging tarball (PURGELAB_DEBIAN_TARBALL)")
    return [(pin["PURGELAB_DEBIAN_TARBALL"], pin["PURGELAB_DEBIAN_SHA256"])]


def dsc_name(package, version):
    """The .dsc of a source package version: the epoch is not in file names."""
    return f"{package}_{version.split(':', 1)[-1]}.dsc"


# -- apt sources -------------------------------------------------------------
def parse_stanzas(text):
    """deb822 stanzas -> [{field: value}] (comment lines dropped)."""
    out = []
    for block in re.split(r"\n\s*\n", text):
        fields, last = {}, None
        for line in block.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line[0] in " \t" and last:           # a continuation line
                fields[last] += " " + line.strip()
                continue
            key, sep, value = line.partition(":")
            if sep:
                last = key.strip()
                fields[last] = value.strip()
        if fields:
            out.append(fields)
    return out


def for_suite(stanzas, suite):
    """The stanzas with every suite moved to another Debian release: the
    codename before the first '-' is replaced, the rest kept (bookworm ->
    bullseye, bookworm-updates -> bullseye-updates, bookworm-security ->
    bullseye-security)."""
    if not re.fullmatch(r"[a-z][a-z0-9]*", suite or ""):
        raise FetchError(f"'{suite}' is not a Debian codename (e.g. bullseye)")
    out = []
    for st in stanzas:
        suites = []
        for s in st.get("Suites", "").split():
            _, dash, rest = s.partition("-")
            moved = suite + dash + rest
            if moved not in suites:
                suites.append(moved)
        out.append(dict(st, Suites=" ".join(suites)))
    return out


def render(stanzas):
    keys = ("Types", "URIs", "Suites", "Components", "Signed-By")
    return "\n".join("".join(f"{k}: {st[k]}\n" for k in keys if st.get(k))
                     for st in stanzas)


def suites_of(stanzas):
    return {s for st in stanzas for s in st.get("Suites", "").split()}


def archive_uris(stanzas):
    """The archive URIs, each once, in the order of the entries."""
    uris = []
    for st in stanzas:
        for u in st.get("URIs", "").split():
            u = u.rstrip("/")
            if u not in uris:
                uris.append(u)
    return uris


def pool_prefix(package):
    """The pool's directory letter(s) of a source package (libfoo -> libf)."""
    return package[:4] if package.startswith("lib") and len(package) > 3 else package[0]


# the pool's component directories: Debian's main archive has pool/main, its
# security archive pool/updates/main
POOL_COMPONENTS = ("main", "updates/main")


def pool_url(uri, package, filename, component="main"):
    return (f"{uri.rstrip('/')}/pool/{component}/{pool_prefix(package)}/"
            f"{package}/{filename}")


def pool_bases(uris):
    """[(uri, component)] to look in, in order: each URI's pool/main, then
    its pool/updates/main (the security archive's layout)."""
    return [(u, c) for u in uris for c in POOL_COMPONENTS]


def listed(showsrc, package, version):
    """Whether 'apt-cache showsrc' output lists this package version."""
    return any(st.get("Package") == package and st.get("Version") == version
               for st in parse_stanzas(showsrc))


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# -- the decision ------------------------------------------------------------
def fetch(pin, dest, ops, want="orig", log=print):
    """Put the wanted file(s) of the pinned version into dest; return
    'index' or 'pool' (how they came). ops: listed(), apt_source(dest),
    uris(), download(url, path) (see AptOps)."""
    pkg, ver, suite = (pin["PURGELAB_DEB_PACKAGE"], pin["PURGELAB_DEB_VERSION"],
                       pin["PURGELAB_DEB_SUITE"])
    files = wanted(pin, want)
    spec = f"{pkg}={ver}"
    try:
        is_listed = ops.listed()
        reason = f"no {suite} index lists {spec}"
    except FetchError as e:
        is_listed, reason = False, f"the {suite} index could not be read ({e})"
    if is_listed:
        try:
            ops.apt_source(dest)
        except FetchError as e:
            reason = f"the {suite} index lists {spec}, but apt-get source failed ({e})"
        else:
            missing = [n for n, _ in files if not os.path.isfile(os.path.join(dest, n))]
            if not missing:
                return "index"
            reason = (f"apt-get source {spec} did not deliver {', '.join(missing)} "
                      "(was the package re-uploaded under other file names?)")
    log(f"fetch: {reason}; falling back to the pool path")
    uris = ops.uris()
    if not uris:
        raise FetchError(f"{reason}, and the machine's apt sources give no Debian archive "
                         "URI to look in its pool")
    tried = []
    names = [(dsc_name(pkg, ver), None)] + files
    for uri, component in pool_bases(uris):
        tmp = tempfile.mkdtemp(prefix=".pool.", dir=dest)
        try:
            for name, want_sha in names:
                url = pool_url(uri, pkg, name, component)
                path = os.path.join(tmp, name)
                ops.download(url, path)
                if want_sha:
                    got = sha256(path)
                    if got != want_sha:
                        raise FetchError(
                            f"sha256 mismatch for {url}:\n  expected {want_sha}\n"
                            f"  got      {got}\n  The pool serves another file under the "
                            "pinned name: check the pin (cmake/) before building it.")
            for name, _ in names:
                os.replace(os.path.join(tmp, name), os.path.join(dest, name))
            log(f"fetch: fetched {', '.join(n for n, _ in names)} by the pool path under "
                f"{uri}/pool/{component} (fallback: {reason}); sha256 as pinned")
            return "pool"
        except NotFound as e:
            tried.append(f"{url}: {e}")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    raise FetchError(f"cannot fetch {spec}: {reason}, and its pool path is not served:\n  "
                     + "\n  ".join(tried) +
                     "\n  The version is gone from this mirror: pin one that is served "
                     "(cmake/), or pass a local tarball (PURGELAB_SOURCE_TARBALL).")


# -- apt, for real -----------------------------------------------------------
def run(cmd, cwd=None):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)


def last_lines(text, n=4):
    return "; ".join(line.strip() for line in text.strip().splitlines()[-n:])


class AptOps:
    """listed/apt_source/uris/download through apt (see the module's doc)."""

    def __init__(self, pin, cache, apt_dir="/etc/apt"):
        self.pin = pin
        self.cache = cache
        self.apt_dir = apt_dir
        self.opts = None
        self._stanzas = None

    def stanzas(self):
        """The machine's Debian entries as deb-src (tools/deb-src derive)."""
        if self._stanzas is None:
            p = subprocess.run([os.path.join(TOOLS, "deb-src"), "derive", self.apt_dir],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                raise FetchError(p.stderr.strip() or "tools/deb-src derive failed")
            self._stanzas = parse_stanzas(p.stdout)
        return self._stanzas

    def uris(self):
        return archive_uris(self.stanzas())

    def setup(self):
        """apt options that make the pin's suite's index readable."""
        if self.opts is not None:
            return self.opts
        suite = self.pin["PURGELAB_DEB_SUITE"]
        own = run([os.path.join(TOOLS, "deb-src"), "has", self.apt_dir]).returncode == 0
        if own and suite in suites_of(self.stanzas()):
            self.opts = []          # the machine's own deb-src (BUILD/setup)
            return self.opts
        # a private apt directory for that suite; the system's is not touched
        d = os.path.join(self.cache, "apt", suite)
        for sub in ("sources.list.d", "lists/partial", "cache/archives/partial"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        with open(os.path.join(d, "sources.list.d", "purgelab.sources"), "w") as f:
            f.write(render(for_suite(self.stanzas(), suite)))
        open(os.path.join(d, "sources.list"), "w").close()
        if os.getuid() == 0:    # apt downloads as _apt: let it write there
            subprocess.run(["chown", "-R", "_apt", os.path.join(d, "lists")],
                           stderr=subprocess.DEVNULL)
        opts = ["-o", f"Dir::Etc::SourceList={d}/sources.list",
                "-o", f"Dir::Etc::SourceParts={d}/sources.list.d",
                "-o", f"Dir::State::Lists={d}/lists",
                "-o", f"Dir::Cache={d}/cache"]
        print(f"fetch: reading the {suite} source index (private apt directory {d})",
              file=sys.stderr)
        p = run(["apt-get", "-q"] + opts + ["update"])
        if p.returncode != 0:
            raise FetchError(f"apt-get update for {suite} failed: {last_lines(p.stdout)}")
        self.opts = opts
        return opts

    def listed(self):
        opts = self.setup()
        pkg = self.pin["PURGELAB_DEB_PACKAGE"]
        p = run(["apt-cache"] + opts + ["showsrc", "--only-source", pkg])
        return listed(p.stdout, pkg, self.pin["PURGELAB_DEB_VERSION"])

    def apt_source(self, dest):
        spec = f"{self.pin['PURGELAB_DEB_PACKAGE']}={self.pin['PURGELAB_DEB_VERSION']}"
        print(f"fetch: apt-get source --download-only {spec}", file=sys.stderr)
        p = run(["apt-get", "-q"] + self.setup() + ["source", "--download-only", spec],
                cwd=dest)
        if p.returncode != 0:
            raise FetchError(last_lines(p.stdout, 2))

    def download(self, url, path):
        print(f"fetch: {url}", file=sys.stderr)
        if os.getuid() == 0:
            subprocess.run(["chown", "_apt", os.path.dirname(path)], stderr=subprocess.DEVNULL)
        p = run([APT_HELPER, "download-file", url, path])
        if p.returncode == 0 and os.path.isfile(path):
            return
        if re.search(r"\b404\b|Not Found|No such file", p.stdout):
            raise NotFound("not found (404)")
        raise FetchError(f"downloading {url} failed: {last_lines(p.stdout)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["fetch"])
    ap.add_argument("--pin", required=True)
    ap.add_argument("--dest", required=True)
    ap.add_argument("--want", choices=["orig", "debian"], default="orig")
    ap.add_argument("--apt-dir", default="/etc/apt")
    args = ap.parse_args(argv)
    try:
        pin = read_pin(args.pin)
        os.makedirs(args.dest, exist_ok=True)
        cache = os.path.dirname(os.path.abspath(args.dest))
        fetch(pin, args.dest, AptOps(pin, cache, args.apt_dir), args.want,
              log=lambda m: print(m, file=sys.stderr))
    except FetchError as e:
        print(f"fetch-upstream: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
