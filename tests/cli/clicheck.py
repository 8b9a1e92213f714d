"""What the CLI checks share: running the app binary and collecting failures (each check_*.py
reports every failure, then exits 1 if there was any)."""
import os
import pathlib
import shutil
import subprocess
import sys


class Checks:
    def __init__(self, exe):
        self.exe = exe
        self.failures = []

    def check(self, cond, what):
        if not cond:
            self.failures.append(what)

    def run(self, *args, expect=0):
        r = subprocess.run([self.exe, *map(str, args)], capture_output=True, text=True)
        self.check(r.returncode == expect,
                   f"{' '.join(map(str, args))}: exit {r.returncode} (expected {expect}), stderr {r.stderr!r}")
        return r

    def finish(self):
        for f in self.failures:
            print("FAIL:", f)
        sys.exit(1 if self.failures else 0)


def copy_cache_fixtures(src, root):
    """Copies the compile-cache fixtures SRC to ROOT with every file chmod'ed 600, as TorchAir wants
    them (git keeps no mode); symbolic links are copied as links."""
    shutil.copytree(src, root, symlinks=True)
    for dirpath, _, files in os.walk(root):
        for name in files:
            p = pathlib.Path(dirpath) / name
            if not p.is_symlink():
                p.chmod(0o600)
