"""What the benchmark scripts share: the rail binary they measure and the repository they start
from. Imported by after_tool.py, cli_latency.py, crowded_claims.py, hook_latency.py and wide_claims.py."""
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# git with an identity of its own, for the commits a benchmark makes.
GIT = ["git", "-c", "user.name=b", "-c", "user.email=b@e.invalid"]


def quiet(cmd, cwd, **kw):
    """Runs `cmd` in `cwd`, output discarded; fails the benchmark if it fails."""
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)


def rail_binary(given=None):
    """The binary to measure: `given` (--rail), else this tree's release build, built first."""
    if given:
        return os.path.abspath(given)
    subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "rail-cli"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "release", "rail")


def new_repo(prefix, empty_commit=True):
    """A fresh git repository on branch main in a temporary folder, with an empty first commit
    unless told otherwise."""
    d = tempfile.mkdtemp(prefix=prefix)
    quiet(["git", "init", "-q", "-b", "main"], d)
    if empty_commit:
        quiet(GIT + ["commit", "-q", "--allow-empty", "-m", "init"], d)
    return d
