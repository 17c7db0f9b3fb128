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

"""Write the fork as a git branch of commits on the pristine upstream tree.

The first commit is the pristine tree (the pinned orig tarball, unpacked, byte
for byte); then one commit per feature of patches/export.map, in its order:
the feature's patches (in series order) and its fork files, mtr tests and
unit tests. The repository is a bare one; BUILD/export is the entry point
(it finds and verifies the tarball with tools/fetch-upstream first).

  export.py export --repo R --pristine DIR --out DIR [--rev REV] [--branch B]
                   [--format-patch DIR2] [--without-unit-tests]
  export.py check-map --repo R [--rev REV]   the map against the fork only
"""

import argparse
import fnmatch
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import assemble  # noqa: E402
import debsource  # noqa: E402

MAP = "patches/export.map"
MTR_SUITE = "mysql-test/suite/purgelab"
LIST_FIELDS = ("Depends", "Patches", "Files", "Mtr", "Unit", "Omit")
TEXT_FIELDS = ("Feature", "Subject", "Description", "Why")
ITEM_FIELDS = ("Unclean",)
# what #include can name, and what a header is (a file included, not compiled)
C_SOURCE = re.compile(r"\.(h|hpp|hh|ic|i|inl|c|cc|cpp)$")
C_HEADER = re.compile(r"\.(h|hpp|hh|ic|i|inl)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
MTR_SOURCE = re.compile(r'^\s*-*source\s+(suite/purgelab/include/\S+?\.inc)\s*;?\s*$',
                        re.M | re.I)
ZERO = "0" * 40


class ExportError(Exception):
    pass


class Feature:
    def __init__(self, line):
        self.line = line
        self.name = self.subject = self.description = ""
        self.depends, self.patches, self.files = [], [], []
        self.mtr, self.unit, self.unclean = [], [], []

    def __repr__(self):
        return f"Feature({self.name})"


class Omit:
    def __init__(self, line):
        self.line = line
        self.patterns, self.why = [], ""


# ------------------------------------------------------------------ the map

def parse_map(text, where=MAP):
    """patches/export.map -> ([Feature], [Omit]). Stanzas of 'Field: value'
    lines, continuation lines starting with white space, separated by blank
    lines; '#' in the first column starts a comment line."""
    stanzas, cur = [], None
    for n, raw in enumerate(text.splitlines(), 1):
        if raw.startswith("#"):
            continue
        if not raw.strip():
            cur = None
            continue
        if raw[0] in " \t":
            if cur is None or not cur[1]:
                raise ExportError(f"{where}:{n}: a continuation line outside a field")
            cur[1][-1][2].append(raw[1:] if raw[0] == " " else raw.lstrip("\t"))
            continue
        m = re.match(r"^([A-Za-z][A-Za-z-]*):(.*)$", raw)
        if not m:
            raise ExportError(f"{where}:{n}: expected 'Field: value', got {raw!r}")
        if cur is None:
            cur = (n, [])
            stanzas.append(cur)
        field = m.group(1)
        if field not in LIST_FIELDS + TEXT_FIELDS + ITEM_FIELDS:
            raise ExportError(f"{where}:{n}: unknown field '{field}'")
        if any(f == field for f, _, _ in cur[1]):
            raise ExportError(f"{where}:{n}: field '{field}' twice in one stanza")
        cur[1].append((field, m.group(2).strip(), []))

    features, omits = [], []
    for line, fields in stanzas:
        names = {f for f, _, _ in fields}
        if "Feature" in names and "Omit" in names:
            raise ExportError(f"{where}:{line}: a stanza is a Feature or an Omit, not both")
        if "Omit" in names:
            o = Omit(line)
            for f, first, more in fields:
                if f == "Omit":
                    o.patterns = (first + " " + " ".join(more)).split()
                elif f == "Why":
                    o.why = " ".join([first] + [m.strip() for m in more]).strip()
                else:
                    raise ExportError(f"{where}:{line}: an Omit stanza has Omit and Why only, not {f}")
            if not o.why:
                raise ExportError(f"{where}:{line}: Omit without a Why")
            omits.append(o)
            continue
        if "Feature" not in names:
            raise ExportError(f"{where}:{line}: a stanza without Feature or Omit")
        ft = Feature(line)
        for f, first, more in fields:
            if f in LIST_FIELDS:
                setattr(ft, f.lower(), (first + " " + " ".join(more)).split())
            elif f == "Feature":
                ft.name = first
            elif f == "Subject":
                ft.subject = " ".join([first] + [m.strip() for m in more])
            elif f == "Description":
                body = ([first] if first else []) + more
                ft.description = "\n".join("" if b.strip() == "." else b.rstrip()
                                           for b in body).strip("\n")
            elif f == "Unclean":
                items = []
                for b in ([first] if first else []) + more:
                    b = b.rstrip()
                    if b.lstrip().startswith("- ") or not items:
                        items.append(b.lstrip()[2:] if b.lstrip().startswith("- ") else b.strip())
                    else:
                        items[-1] += " " + b.strip()
                ft.unclean = items
            elif f == "Why":
                raise ExportError(f"{where}:{line}: Why belongs to an Omit stanza")
        for need in ("name", "subject", "description"):
            if not getattr(ft, need):
                raise ExportError(f"{where}:{line}: feature without {need.capitalize()}")
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", ft.name):
            raise ExportError(f"{where}:{line}: feature name '{ft.name}': lower case, digits, '-'")
        features.append(ft)
    if not features:
        raise ExportError(f"{where}: no Feature stanza")
    return features, omits


# ------------------------------------------------------------------ the fork

def mtr_files(name, overlay):
    """The files of mtr test NAME of the purgelab suite: t/NAME.test and its
    .opt/.cnf/.combinations, r/NAME.result and those of its combinations."""
    pat = re.compile(rf"^{re.escape(MTR_SUITE)}/[tr]/{re.escape(name)}"
                     r"(-master|-slave)?(,[^/]*)?\.[^/.]+$")
    return [f for f in overlay if pat.match(f)]


class Plan:
    """The map checked against a fork tree, each feature with what it adds."""

    def __init__(self, fork, map_text=None):
        self.fork = os.path.abspath(fork)
        if map_text is None:
            path = os.path.join(self.fork, MAP)
            if not os.path.exists(path):
                raise ExportError(f"{MAP} does not exist in {self.fork}")
            with open(path, encoding="utf-8") as f:
                map_text = f.read()
        self.features, self.omits = parse_map(map_text)
        self.patch_dir = os.path.join(self.fork, "patches")
        try:
            self.series = assemble.read_series(self.patch_dir)
        except assemble.AssemblyError as e:
            raise ExportError(str(e))
        self.overlay = assemble.overlay_files(self.fork)
        self.touched = {p: assemble.patched_files(os.path.join(self.patch_dir, p))
                        for p in self.series}
        problems = []
        self._check(problems)
        if problems:
            raise ExportError(f"{MAP} does not match the fork:\n  " + "\n  ".join(problems))

    def _check(self, problems):
        index = {}
        for i, ft in enumerate(self.features):
            if ft.name in index:
                problems.append(f"feature '{ft.name}' twice")
            index[ft.name] = i
        for i, ft in enumerate(self.features):
            for d in ft.depends:
                if d not in index:
                    problems.append(f"{ft.name}: Depends on unknown feature '{d}'")
                elif index[d] >= i:
                    problems.append(f"{ft.name}: Depends on '{d}', which comes after it")

        # every patch of the series in exactly one feature
        owner = {}
        for i, ft in enumerate(self.features):
            for p in ft.patches:
                if p not in self.series:
                    problems.append(f"{ft.name}: patch {p} is not in patches/series")
                elif p in owner:
                    problems.append(f"patch {p} in {self.features[owner[p]].name} and {ft.name}")
                else:
                    owner[p] = i
        for p in self.series:
            if p not in owner:
                problems.append(f"patch {p} (patches/series) is in no feature")
        self.patch_owner = owner
        for ft in self.features:
            ft.patches = [p for p in self.series if p in ft.patches]

        # patches that touch the same file: their features in series order
        last = {}
        for p in self.series:
            for path in self.touched[p]:
                if path in last and p in owner and last[path][1] > owner[p]:
                    q = last[path][0]
                    problems.append(
                        f"{path}: patch {q} ({self.features[last[path][1]].name}) comes before "
                        f"{p} ({self.features[owner[p]].name}) in the series, after it in the map")
                if p in owner:
                    last[path] = (p, owner[p])

        # every overlay file in exactly one feature or Omit
        self.file_owner = {}
        overlay = set(self.overlay)

        def claim(path, who, i):
            if path not in overlay:
                problems.append(f"{who}: {path} is not a file of the fork")
            elif path in self.file_owner:
                problems.append(f"{path} in {self.describe(self.file_owner[path])} and {who}")
            else:
                self.file_owner[path] = i

        for i, ft in enumerate(self.features):
            ft.all_mtr = []
            for t in ft.mtr:
                files = mtr_files(t, self.overlay)
                if f"{MTR_SUITE}/t/{t}.test" not in files:
                    problems.append(f"{ft.name}: mtr test {t}: no {MTR_SUITE}/t/{t}.test")
                for f in files:
                    claim(f, ft.name, i)
                ft.all_mtr += files
            for f in ft.files + ft.unit:
                claim(f, ft.name, i)
            for f in ft.unit:
                if not f.startswith("unittest/"):
                    problems.append(f"{ft.name}: Unit {f} is not under unittest/")
        for j, o in enumerate(self.omits):
            for pat in o.patterns:
                hits = [f for f in self.overlay if fnmatch.fnmatchcase(f, pat)]
                if not hits:
                    problems.append(f"Omit {pat} (line {o.line}) matches no file of the fork")
                for f in hits:
                    claim(f, f"Omit (line {o.line})", -1 - j)
        for f in self.overlay:
            if f not in self.file_owner:
                problems.append(f"{f} is in no feature and not in an Omit stanza")

    def describe(self, i):
        return self.features[i].name if i >= 0 else f"Omit (line {self.omits[-1 - i].line})"

    def feature_files(self, ft, unit=True):
        return sorted(set(ft.files + ft.all_mtr + (ft.unit if unit else [])))

    # -------------------------------------------------------- dependencies

    def read(self, path):
        with open(os.path.join(self.fork, path), encoding="utf-8", errors="replace") as f:
            return f.read()

    def patch_sections(self, name):
        """{patched file: (the patch creates it, its added lines)} of one patch."""
        out, cur, old = {}, None, None
        with open(os.path.join(self.patch_dir, name), encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("--- "):
                    old = line[4:].split("\t")[0].strip()
                elif line.startswith("+++ ") and old is not None:
                    new = line[4:].split("\t")[0].strip()
                    cur = None if new == "/dev/null" else assemble.strip1(new)
                    if cur:
                        out.setdefault(cur, (old == "/dev/null", []))
                    old = None
                elif cur and line.startswith("+"):
                    out[cur][1].append(line[1:])
        return out

    def dependency_report(self):
        """(later, unneeded): includes that reach a file of a later feature,
        as (feature, source, target, its feature); and headers or mtr include
        files that nothing of their own feature includes (they belong to the
        first feature that needs them), as (feature, file)."""
        # where a name that #include or --source gives can be found
        owner = {}          # path -> feature index (fork files, patch-created files)
        for path, i in self.file_owner.items():
            if i >= 0:
                owner[path] = i
        sections = {p: self.patch_sections(p) for p in self.patch_owner}
        for p, i in self.patch_owner.items():
            for path, (created, _) in sections[p].items():
                if created:
                    owner.setdefault(path, i)   # a file that the patch creates
        by_base = {}
        for path in owner:
            by_base.setdefault(os.path.basename(path), []).append(path)

        def resolve(src, name):
            if name.startswith("suite/purgelab/"):
                path = "mysql-test/" + name
                return path if path in owner else None
            cands = by_base.get(os.path.basename(name), [])
            cands = [c for c in cands if c.endswith("/" + name) or c == name] or \
                [c for c in cands if "/" not in name]
            if len(cands) > 1:
                near = [c for c in cands if os.path.dirname(c) == os.path.dirname(src)]
                cands = near or cands
            return cands[0] if cands else None

        edges = []      # (feature of the source, source, target)
        for path, i in owner.items():
            if path.startswith(MTR_SUITE + "/"):
                if os.path.exists(os.path.join(self.fork, path)):
                    for m in MTR_SOURCE.finditer(self.read(path)):
                        edges.append((i, path, m.group(1)))
            elif C_SOURCE.search(path) and os.path.exists(os.path.join(self.fork, path)):
                for m in INCLUDE.finditer(self.read(path)):
                    edges.append((i, path, m.group(1)))
        for p, i in self.patch_owner.items():
            for path, (_, added) in sections[p].items():
                for m in INCLUDE.finditer("".join(added)):
                    edges.append((i, path, m.group(1)))

        later, reached = [], set()
        for i, src, name in edges:
            tgt = resolve(src, name)
            if tgt is None or tgt == src:
                continue
            if owner[tgt] > i:
                later.append((self.features[i].name, src, tgt, self.features[owner[tgt]].name))
            elif owner[tgt] == i:
                reached.add(tgt)
        unneeded = []
        for path, i in sorted(self.file_owner.items()):
            if i < 0 or path.startswith("unittest/"):
                continue
            needs_user = C_HEADER.search(path) or (path.startswith(MTR_SUITE + "/include/"))
            if needs_user and path not in reached:
                unneeded.append((self.features[i].name, path))
        return sorted(set(later)), unneeded


# ------------------------------------------------------------------ git

def git(*args, git_dir=None, cwd=None, env=None, input=None, check=True):
    cmd = ["git"] + (["--git-dir", git_dir] if git_dir else []) + list(args)
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=input, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    if check and proc.returncode != 0:
        raise ExportError(f"{' '.join(cmd)}: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout.decode(errors="replace").strip() if proc.returncode == 0 else None


def snapshot(repo, rev, dest):
    """The fork's tree at REV (patches/ and the overlay roots) under dest."""
    roots = [r for r in ("patches",) + assemble.OVERLAY_ROOTS
             if git("cat-file", "-e", f"{rev}:{r}", cwd=repo, check=False) is not None]
    data = subprocess.run(["git", "archive", "--format=tar", rev, "--"] + roots, cwd=repo,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if data.returncode != 0:
        raise ExportError(f"git archive {rev}: {data.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(data.stdout)) as t:
        t.extractall(dest)


def identity(repo):
    name = git("config", "user.name", cwd=repo, check=False)
    email = git("config", "user.email", cwd=repo, check=False)
    if not name or not email:
        raise ExportError(f"no git identity in {repo}: set user.name and user.email "
                          "(git config user.name ...), the author of the export's commits")
    return name, email


def fi_path(path):
    """A path as git fast-import reads it (C-quoted when it must be)."""
    if path.startswith('"') or any(c in path for c in '\n\\"') or not path.isprintable():
        esc = path.encode("utf-8", "surrogateescape")
        out = "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else
                      {34: '\\"', 92: "\\\\", 10: "\\n", 9: "\\t"}.get(b, f"\\{b:03o}")
                      for b in esc)
        return f'"{out}"'
    return path


class FastImport:
    def __init__(self, git_dir, marks):
        self.proc = subprocess.Popen(
            ["git", "--git-dir", git_dir, "fast-import", "--quiet", "--force",
             "--date-format=raw", f"--export-marks={marks}"],
            stdin=subprocess.PIPE)
        self.out = self.proc.stdin

    def data(self, blob):
        self.out.write(b"data %d\n" % len(blob))
        self.out.write(blob)
        self.out.write(b"\n")

    def commit(self, ref, mark, who, when, message, parent, changes):
        """changes: (mode, path, bytes) to write, (None, path, None) to delete."""
        name, email = who
        self.out.write(f"commit {ref}\nmark :{mark}\n".encode())
        for role in ("author", "committer"):
            self.out.write(f"{role} {name} <{email}> {when} +0000\n".encode())
        self.data(message.encode())
        if parent:
            self.out.write(f"from {parent}\n".encode())
        for mode, path, blob in changes:
            if mode is None:
                self.out.write(f"D {fi_path(path)}\n".encode())
            else:
                self.out.write(f"M {mode} inline {fi_path(path)}\n".encode("utf-8", "surrogateescape"))
                self.data(blob)
        self.out.write(b"\n")

    def reset(self, ref):
        self.out.write(f"reset {ref}\n\n".encode())

    def close(self):
        self.out.close()
        if self.proc.wait() != 0:
            raise ExportError("git fast-import failed (see above)")


def file_mode(path):
    st = os.lstat(path)
    if os.path.islink(path):
        return "120000"
    return "100755" if st.st_mode & 0o111 else "100644"


def file_bytes(path):
    if os.path.islink(path):
        return os.fsencode(os.readlink(path))
    with open(path, "rb") as f:
        return f.read()


def pristine_paths(pristine):
    """Every file of the pristine tree, relative, in path order (the
    extraction marker of tools/fetch-upstream left out)."""
    for dirpath, dirnames, filenames in os.walk(pristine):
        dirnames.sort()
        for fn in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, fn), pristine)
            if rel != ".purgelab-extracted":
                yield rel


def pristine_changes(pristine, paths):
    """Those files as fast-import changes, read one at a time."""
    for rel in paths:
        full = os.path.join(pristine, rel)
        yield file_mode(full), rel, file_bytes(full)


# ------------------------------------------------------------------ messages

def wrap(text, width=72):
    return "\n".join(textwrap.wrap(text, width, break_long_words=False,
                                   break_on_hyphens=False))


def feature_message(plan, ft, unit=True):
    by_name = {f.name: f for f in plan.features}
    parts = [ft.subject, ft.description]
    if ft.depends:
        parts.append("\n".join(["Depends on:"] + [f"  {by_name[d].subject}" for d in ft.depends]))
    if ft.unclean:
        parts.append("\n".join(["Not self-contained yet (purgelab export note):"] +
                               [textwrap.fill(u, 72, initial_indent="- ",
                                              subsequent_indent="  ", break_long_words=False,
                                              break_on_hyphens=False) for u in ft.unclean]))
    tests = []
    if ft.mtr:
        tests.append(wrap("mtr: " + ", ".join(f"purgelab.{t}" for t in ft.mtr) + "."))
    if ft.unit and unit:
        tests.append(wrap("Unit tests (googletest, under unittest/purgelab, which this "
                          "tree's CMake does not build): " + ", ".join(ft.unit) + "."))
    if tests:
        parts.append("Tests:\n" + "\n".join(tests))
    return "\n\n".join(parts) + "\n"


def pristine_message(info, n_files):
    return (f"MariaDB {info['version']} (Debian orig tarball, sha256 {info['sha256']})\n\n" +
            wrap(f"{info['orig']} of Debian's source package {info['deb_package']} "
                 f"{info['deb_version']}, unpacked as it is ({n_files} files, "
                 "byte for byte, without git's attribute filters): the base of the "
                 "purgelab commits that follow it.") + "\n")


def read_pin(fork):
    """The pin of the exported revision: version, orig tarball, its sha256."""
    try:
        pin = debsource.read_pin(os.path.join(fork, "cmake", "pin.cmake"))
    except debsource.FetchError as e:
        raise ExportError(str(e))
    if not pin.get("PURGELAB_UPSTREAM_VERSION"):
        raise ExportError("cmake/pin.cmake has no PURGELAB_UPSTREAM_VERSION")
    return {"version": pin["PURGELAB_UPSTREAM_VERSION"], "orig": pin["PURGELAB_ORIG_TARBALL"],
            "sha256": pin["PURGELAB_ORIG_SHA256"], "deb_package": pin["PURGELAB_DEB_PACKAGE"],
            "deb_version": pin["PURGELAB_DEB_VERSION"]}


# ------------------------------------------------------------------ export

def prepare_out(out):
    """A bare repository at out: created, or an earlier export."""
    if os.path.exists(out):
        if not os.path.isdir(out):
            raise ExportError(f"{out} exists and is not a directory; choose another --out")
        if os.listdir(out):
            if git("config", "--get", "purgelab.export", git_dir=out, check=False) != "true":
                raise ExportError(
                    f"{out} exists and is not an export (not a git repository that BUILD/export "
                    "wrote: no purgelab.export in its config); choose another --out, or remove it")
            return
    os.makedirs(out, exist_ok=True)
    git("init", "-q", "--bare", out)
    git("config", "purgelab.export", "true", git_dir=out)
    git("config", "core.logAllRefUpdates", "true", git_dir=out)


def export(repo, rev, pristine, out, branch=None, format_patch=None, unit=True,
           sha256=None, log=print):
    repo, pristine, out = map(os.path.abspath, (repo, pristine, out))
    commit = git("rev-parse", "--verify", f"{rev}^{{commit}}", cwd=repo, check=False)
    if not commit:
        raise ExportError(f"{rev} is not a revision of {repo}")
    who = identity(repo)
    when = int(os.environ.get("SOURCE_DATE_EPOCH") or git("log", "-1", "--format=%ct", commit, cwd=repo))
    tmp = tempfile.mkdtemp(prefix="purgelab-export-")
    try:
        fork = os.path.join(tmp, "fork")
        os.makedirs(fork)
        snapshot(repo, commit, fork)
        if not os.path.exists(os.path.join(fork, MAP)):
            raise ExportError(f"{MAP} is not in {rev} ({commit[:12]}) of {repo}")
        plan = Plan(fork)
        info = read_pin(fork)
        if sha256:
            info["sha256"] = sha256
        branch = branch or f"purgelab-{info['version']}"
        if git("check-ref-format", "--branch", branch, check=False) is None:
            raise ExportError(f"'{branch}' is not a valid branch name")
        if format_patch:
            format_patch = os.path.abspath(format_patch)
            if os.path.isdir(format_patch):
                other = [f for f in os.listdir(format_patch) if not re.match(r"^\d{4}-.*\.patch$", f)]
                if other:
                    raise ExportError(f"{format_patch} holds other files than format-patch's "
                                      f"(e.g. {other[0]}); choose another directory")
            elif os.path.exists(format_patch):
                raise ExportError(f"{format_patch} exists and is not a directory")
        prepare_out(out)
        for line in uncommitted(repo, commit):
            log(line)

        marks = os.path.join(tmp, "marks")
        fi = FastImport(out, marks)
        base_ref = f"refs/purgelab/pristine-{info['sha256']}"
        base = git("rev-parse", "-q", "--verify", f"{base_ref}^{{commit}}", git_dir=out, check=False)
        mark = 1
        try:
            if not base:
                log(f"export: importing the pristine tree {pristine}")
                paths = list(pristine_paths(pristine))
                vfile = os.path.join(pristine, "VERSION")
                base_when = int(os.stat(vfile).st_mtime) if os.path.exists(vfile) else when
                fi.reset(base_ref)
                fi.commit(base_ref, mark, who, base_when, pristine_message(info, len(paths)),
                          None, pristine_changes(pristine, paths))
                base = f":{mark}"
                mark += 1

            # the files that the patches touch, as they are before the first patch
            work = os.path.join(tmp, "work")
            os.makedirs(work)
            touched = {}
            for p in plan.series:
                touched.update(plan.touched[p])
            assemble.copy_pristine(pristine, touched, work)
            parent, tips = base, []
            for ft in plan.features:
                try:
                    assemble.apply_series(plan.patch_dir, ft.patches, work)
                except assemble.AssemblyError as e:
                    raise ExportError(f"feature {ft.name}: {e}")
                changes = []
                for p in ft.patches:
                    for path, deleted in sorted(plan.touched[p].items()):
                        changes = [c for c in changes if c[1] != path]
                        full = os.path.join(work, path)
                        if deleted or not os.path.lexists(full):
                            changes.append((None, path, None))
                        else:
                            src = os.path.join(pristine, path)
                            mode = file_mode(src) if os.path.exists(src) else "100644"
                            changes.append((mode, path, file_bytes(full)))
                for path in plan.feature_files(ft, unit):
                    full = os.path.join(fork, path)
                    changes.append((file_mode(full), path, file_bytes(full)))
                if not changes:
                    raise ExportError(f"feature {ft.name} changes nothing")
                fi.commit(f"refs/heads/{branch}", mark, who, when,
                          feature_message(plan, ft, unit), parent, changes)
                tips.append((ft, f":{mark}"))
                parent = f":{mark}"
                mark += 1
        finally:
            fi.close()
        resolved = {}
        with open(marks) as f:
            for line in f:
                m, sha = line.split()
                resolved[m] = sha
        base = resolved.get(base, base)
        tip = resolved[parent]
        git("update-ref", f"refs/heads/{branch}", tip, git_dir=out)
        git("symbolic-ref", "HEAD", f"refs/heads/{branch}", git_dir=out)
        # the fork's revision, which the commit messages do not carry
        git("config", f"branch.{branch}.purgelab-revision", commit, git_dir=out)

        later, _ = plan.dependency_report()
        log(summary(out, branch, base, tip, plan, later))
        if format_patch:
            if os.path.isdir(format_patch):
                for f in os.listdir(format_patch):
                    os.remove(os.path.join(format_patch, f))
            os.makedirs(format_patch, exist_ok=True)
            git("format-patch", "--quiet", "--no-signature", "-o", format_patch,
                f"{base}..{tip}", git_dir=out)
            log(f"export: {len(os.listdir(format_patch))} patches (git format-patch) in {format_patch}")
        return base, tip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def uncommitted(repo, commit):
    """Notes on what the export leaves out: the working tree's changes."""
    if git("rev-parse", "--is-inside-work-tree", cwd=repo, check=False) != "true":
        return []
    head = git("rev-parse", "HEAD", cwd=repo, check=False)
    status = git("status", "--porcelain", "--", "patches", *assemble.OVERLAY_ROOTS,
                 cwd=repo, check=False) or ""
    lines = []
    if head != commit:
        lines.append(f"export: exporting {commit[:12]}, not HEAD ({(head or '?')[:12]})")
    changed = [ln[3:] for ln in status.splitlines() if ln.strip()]
    if changed:
        lines.append(f"export: note: {len(changed)} uncommitted change(s) in the working tree "
                     f"are not exported (it exports {commit[:12]}): " + ", ".join(changed[:6]) +
                     (", ..." if len(changed) > 6 else ""))
    return lines


def summary(out, branch, base, tip, plan, later):
    revs = git("rev-list", "--reverse", "--topo-order", f"{base}..{tip}", git_dir=out).split()
    lines = [f"export: branch {branch} in {out} (a bare repository): "
             f"{len(revs)} commits on {base[:12]}",
             f"  {base[:12]} {git('log', '-1', '--format=%s', base, git_dir=out)}"]
    prev = base
    for c in revs:
        subject = git("log", "-1", "--format=%s", c, git_dir=out)
        stat = git("diff", "--shortstat", prev, c, git_dir=out)
        lines.append(f"  {c[:12]} {subject}\n               {stat}")
        prev = c
    unclean = [ft.name for ft in plan.features if ft.unclean]
    if unclean:
        lines.append("export: not self-contained yet (Unclean in patches/export.map): " +
                     ", ".join(unclean))
    for ft, src, tgt, tft in later:
        lines.append(f"export: {ft}: {src} includes {tgt}, which comes with {tft}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tools/export.py", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="write the branch (BUILD/export calls it)")
    e.add_argument("--repo", required=True)
    e.add_argument("--rev", default="HEAD")
    e.add_argument("--pristine", required=True, help="the extracted tarball (tools/fetch-upstream)")
    e.add_argument("--sha256", help="the tarball's verified sha256 (default: the pin's)")
    e.add_argument("--out", required=True)
    e.add_argument("--branch")
    e.add_argument("--format-patch")
    e.add_argument("--without-unit-tests", action="store_true")
    c = sub.add_parser("check-map", help="check patches/export.map against the fork's tree")
    c.add_argument("--repo", required=True)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "check-map":
            plan = Plan(args.repo)
            later, unneeded = plan.dependency_report()
            for ft, src, tgt, tft in later:
                print(f"{ft}: {src} includes {tgt}, which comes with {tft}")
            for ft, path in unneeded:
                print(f"{ft}: {path}: nothing of {ft} includes it")
            print(f"export map: {len(plan.features)} features, {len(plan.series)} patches, "
                  f"{len(plan.overlay)} fork files: each once")
            return 0
        if not os.path.isfile(os.path.join(args.pristine, "VERSION")):
            raise ExportError(f"{args.pristine} is not an extracted MariaDB source tree")
        export(args.repo, args.rev, args.pristine, args.out, args.branch, args.format_patch,
               unit=not args.without_unit_tests, sha256=args.sha256)
    except ExportError as e:
        print(f"export: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
