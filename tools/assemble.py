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

"""Assemble the fork's source tree: pristine upstream + patches/ + overlay.

The assembled tree is kept up to date incrementally: a file is rewritten only
when its content changes, so a build system sees only the files that really
changed (editing one overlay file or one patch rebuilds only its dependents).

Usage: assemble.py --pristine DIR --repo DIR --out DIR [--patches DIR --no-overlay]

A version comparator (BUILD/build stock-10.5) is assembled from its own,
usually empty, patch set (patches/stock-10.5/) and without the overlay.
"""

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Top-level directories of this repository that mirror upstream's layout.
OVERLAY_ROOTS = ("cmake", "extra", "include", "mysql-test", "mysys", "plugin",
                 "scripts", "sql", "storage", "strings", "support-files",
                 "unittest")
# Files under those roots that belong to the superbuild, not to upstream.
OVERLAY_EXCLUDE = re.compile(r"(^|/)(__pycache__|\.pytest_cache)(/|$)|\.pyc$|~$")
STATE = ".purgelab-assembly.json"


class AssemblyError(Exception):
    pass


def read_series(patch_dir):
    """Return the patch names listed in patches/series, in order."""
    series = os.path.join(patch_dir, "series")
    if not os.path.exists(series):
        return []
    names = []
    with open(series, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name = line.split()[0]
            if not os.path.exists(os.path.join(patch_dir, name)):
                raise AssemblyError(f"{series} lists '{name}', which does not exist")
            names.append(name)
    return names


def patched_files(patch_path):
    """Files a -p1 unified diff touches: {path: deleted?}."""
    files = {}
    old = None
    with open(patch_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("--- "):
                old = line[4:].split("\t")[0].strip()
            elif line.startswith("+++ ") and old is not None:
                new = line[4:].split("\t")[0].strip()
                if new == "/dev/null":
                    files[strip1(old)] = True
                else:
                    files[strip1(new)] = False
                old = None
    return files


def strip1(path):
    parts = path.split("/", 1)
    if len(parts) != 2 or not parts[1]:
        raise AssemblyError(f"cannot strip one path component from '{path}'")
    return parts[1]


def explain_patch_failure(name, output):
    """Turn GNU patch's output into 'patch P: file F: hunk #N FAILED ...'."""
    current = None
    problems = []
    for line in output.splitlines():
        m = re.match(r"patching file '?([^']+?)'?$", line.strip())
        if m:
            current = m.group(1)
            continue
        m = re.match(r"Hunk #(\d+) FAILED at (\d+)", line.strip())
        if m:
            problems.append(f"file {current}: hunk #{m.group(1)} does not apply"
                            f" (expected near line {m.group(2)})")
            continue
        if "can't find file" in line or "No file to patch" in line:
            problems.append(f"file {current or '?'}: file to patch not found")
        elif "Reversed (or previously applied) patch" in line:
            problems.append(f"file {current}: already applied or reversed")
    if not problems:
        problems = [output.strip() or "patch failed"]
    return (f"patch {name} does not apply:\n  " + "\n  ".join(problems) +
            "\n  Refresh it against the pinned source (docs/building.md: 'Working on the patches').")


def touched_files(patch_dir, names):
    """{path: deleted?} over a list of patches."""
    touched = {}
    for name in names:
        touched.update(patched_files(os.path.join(patch_dir, name)))
    return touched


def copy_pristine(pristine, paths, work):
    """Copy the pristine versions of paths (those that exist) into work."""
    for path in paths:
        src = os.path.join(pristine, path)
        if os.path.exists(src):
            dst = os.path.join(work, path)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)


def apply_series(patch_dir, names, work):
    """Apply patches in order onto the tree in work (-p1, no fuzz)."""
    for name in names:
        proc = subprocess.run(
            ["patch", "-p1", "--fuzz=0", "--force", "--no-backup-if-mismatch",
             "--reject-file=-", "-d", work, "-i", os.path.join(patch_dir, name)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            raise AssemblyError(explain_patch_failure(name, proc.stdout))


def compute_desired(pristine, repo, patch_dir=None, overlay=True):
    """Map relative path -> source file of its desired content (None = absent)."""
    patch_dir = patch_dir or os.path.join(repo, "patches")
    names = read_series(patch_dir)
    touched = touched_files(patch_dir, names)

    desired = {}
    work = tempfile.mkdtemp(prefix="purgelab-patch-")
    copy_pristine(pristine, touched, work)
    try:
        apply_series(patch_dir, names, work)
    except AssemblyError:
        shutil.rmtree(work, ignore_errors=True)
        raise
    for path, deleted in touched.items():
        desired[path] = None if deleted else os.path.join(work, path)

    for rel in overlay_files(repo) if overlay else ():
        if rel in touched:
            raise AssemblyError(
                f"{rel} is both an overlay file and patched by patches/; keep one")
        desired[rel] = os.path.join(repo, rel)
    return desired, work


def overlay_files(repo):
    """The repository's own files that assembly copies into the tree
    (OVERLAY_ROOTS without OVERLAY_EXCLUDE), relative paths, sorted."""
    out = []
    for root in OVERLAY_ROOTS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(repo, root)):
            for fn in filenames:
                rel = os.path.relpath(os.path.join(dirpath, fn), repo)
                if not OVERLAY_EXCLUDE.search(rel):
                    out.append(rel)
    return sorted(out)


def same_content(a, b):
    if not os.path.exists(b) or os.path.isdir(b):
        return False
    return filecmp.cmp(a, b, shallow=False)


def assemble(pristine, repo, out, verbose=False, patch_dir=None, overlay=True):
    pristine = os.path.abspath(pristine)
    out = os.path.abspath(out)
    state_file = os.path.join(out, STATE)
    state = {}
    if os.path.exists(state_file):
        with open(state_file, encoding="utf-8") as f:
            state = json.load(f)
    if state.get("pristine") != pristine:
        if os.path.exists(out):
            print(f"assemble: base changed, recreating {out}", file=sys.stderr)
            shutil.rmtree(out)
        tmp = out + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        # cp -a keeps the tarball's mtimes: they never change afterwards
        subprocess.run(["cp", "-a", pristine, tmp], check=True)
        os.rename(tmp, out)
        state = {"pristine": pristine, "files": []}

    desired, work = compute_desired(pristine, repo, patch_dir, overlay)
    changed = []
    try:
        for rel in sorted(set(state.get("files", [])) | set(desired)):
            target = os.path.join(out, rel)
            if rel in desired:
                want = desired[rel]
            else:  # no longer ours: back to pristine (or gone if it was new)
                want = os.path.join(pristine, rel)
                if not os.path.exists(want):
                    want = None
            if want is None:
                if os.path.exists(target):
                    os.remove(target)
                    changed.append(rel)
                continue
            if same_content(want, target):
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            tmp = target + ".purgelab-tmp"
            shutil.copyfile(want, tmp)
            shutil.copymode(want, tmp)
            os.replace(tmp, target)
            changed.append(rel)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    state["files"] = sorted(desired)
    with open(state_file + ".tmp", "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1)
    os.replace(state_file + ".tmp", state_file)
    print(f"assemble: {len(desired)} fork files, {len(changed)} updated in {out}")
    if verbose:
        for rel in changed:
            print(f"  {rel}")
    return changed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pristine", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--patches", default=None,
                    help="the quilt series' directory (default REPO/patches)")
    ap.add_argument("--no-overlay", action="store_true",
                    help="leave the repository's overlay files out (a comparator)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    try:
        assemble(args.pristine, args.repo, args.out, args.verbose,
                 patch_dir=args.patches, overlay=not args.no_overlay)
    except AssemblyError as e:
        print(f"assemble: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
