"""Benchmark: ``validate`` and ``diff`` on each hostile file of issue 32 (items 1, 2, 8): wall time and peak RSS.

A draft pulled from the local sandbox, then one hostile file at a time: the certificate a link out of the draft's
folder, ``../outside.p8``, a link to a zero device, a FIFO, a folder, missing, one byte over 64 KiB; the draft
itself and its policies file as a FIFO and as a zero device. Each command runs as its own process under a wall
limit (``--timeout``, default 15 s: "hang" when reached) and an address-space limit (``--memory``, default 2 GiB:
the issue's 17 GB read of /dev/zero ends there as a MemoryError instead of taking the machine). Peak RSS is the
child's own (``os.wait4``).

``--src DIR`` runs another checkout's ``src`` (the code before the fix: ``git archive 7b2e74f src | tar -x -C
/tmp/before``, then ``--src /tmp/before/src``).

    python bench/hostile_files.py [--src DIR] [--timeout 15] [--memory 2048]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _env import ROOT, process_env

P8 = (b"-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgTm90QVJlYWxLZXk=\n"
      b"-----END PRIVATE KEY-----\n")


def zero_device(folder: Path) -> Path:
    """A private zero device as root (never the shared /dev/zero: see tests/test_hostile_files.py), else /dev/zero."""
    if os.geteuid() != 0:
        return Path("/dev/zero")
    node = folder / "zero-device"
    if not node.exists():
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 5))
    return node


def certificate(make: Callable[[Path, Path], str]) -> Callable[[Path], None]:
    """A case that names the certificate ``make`` returns as the first app's p8 key."""
    def setup(draft: Path) -> None:
        written = make(draft.parent, draft.parent / "certs")
        text = draft.read_text(encoding="utf-8")
        head, sep, rest = text.partition("\n    region: ")  # the first app (Acme Support), as pull writes it
        line, _, tail = rest.partition("\n")
        draft.write_text(f"{head}{sep}{line}\n    push_certificates:\n      p8: {written}\n{tail}", encoding="utf-8")
    return setup


def _link_outside(repo: Path, certs: Path) -> str:
    (repo.parent / "ci-secret.p8").write_bytes(P8)
    certs.mkdir()
    (certs / "apns.p8").symlink_to(repo.parent / "ci-secret.p8")
    return "certs/apns.p8"


def _dotdot(repo: Path, certs: Path) -> str:
    (repo.parent / "outside.p8").write_bytes(P8)
    return "../outside.p8"


def _made(make: Callable[[Path], None]) -> Callable[[Path, Path], str]:
    def setup(repo: Path, certs: Path) -> str:
        certs.mkdir()
        make(certs / "apns.p8")
        return "certs/apns.p8"
    return setup


def _replace(name: str, make: Callable[[Path], None]) -> Callable[[Path], None]:
    def setup(draft: Path) -> None:
        target = draft if name == "draft" else draft.with_name(draft.stem + ".policies.yaml")
        target.unlink(missing_ok=True)
        make(target)
    return setup


CASES: dict[str, Callable[[Path], None]] = {
    "certificate: link to a file outside": certificate(_link_outside),
    "certificate: ../outside.p8": certificate(_dotdot),
    "certificate: link to a zero device": certificate(_made(lambda p: p.symlink_to(zero_device(p.parent)))),
    "certificate: FIFO": certificate(_made(os.mkfifo)),
    "certificate: directory": certificate(_made(lambda p: p.mkdir())),
    "certificate: missing": certificate(lambda repo, certs: "certs/missing.p8"),
    "certificate: 64 KiB + 1": certificate(_made(lambda p: p.write_bytes(b"x" * (64 * 1024 + 1)))),
    "draft: FIFO": _replace("draft", os.mkfifo),
    "draft: zero device": _replace("draft", lambda p: p.symlink_to(zero_device(p.parent))),
    "policies file: FIFO": _replace("policies", os.mkfifo),
    "policies file: zero device": _replace("policies", lambda p: p.symlink_to(zero_device(p.parent))),
}


def run(args: list[str], env: dict[str, str], cwd: Path, timeout: float,
        memory: int) -> tuple[str, float, float, float]:
    """(outcome, wall seconds, CPU seconds, peak RSS MiB) of one command, killed at ``timeout`` or capped at
    ``memory`` MiB. CPU time is the figure to compare on a shared machine; wall time includes waiting for it."""
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory << 20, memory << 20))

    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "tenantdeck", *args], env=env, cwd=cwd, preexec_fn=limits,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    os.set_blocking(proc.stdout.fileno(), False)
    output = b""
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        chunk = proc.stdout.read() or b""
        output += chunk[:100_000]
        if pid:
            break
        if time.perf_counter() - start > timeout:
            proc.send_signal(signal.SIGKILL)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = -9
            return (f"hang: killed after {timeout:.0f} s", time.perf_counter() - start,
                    usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
        time.sleep(0.02)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    text = output.decode("utf-8", "replace")
    if "MemoryError" in text:
        outcome = f"MemoryError at the {memory} MiB cap (traceback)"
    elif "Traceback" in text:
        outcome = f"traceback, exit {code}"
    else:
        said = next((ln for ln in text.splitlines() if "error" in ln.lower() or "conflict" in ln.lower()), "")
        outcome = f"exit {code}: {said.strip()[:90]}"
    return outcome, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--timeout", type=float, default=15.0)
    parser.add_argument("--memory", type=int, default=2048, help="address-space cap in MiB")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tenantdeck-hostile-") as tmp:
        root = Path(tmp)
        env = process_env(TENANTDECK_DATA_DIR=str(root / "data"), TENANTDECK_CONFIG_DIR=str(root / "config"),
                          NO_COLOR="1", PYTHONPATH=str(opts.src),
                          TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN="sandboxfaketoken0000000000000000")
        pristine = root / "pristine" / "repo"
        pristine.mkdir(parents=True)
        subprocess.run([sys.executable, "-m", "tenantdeck", "pull", "--draft", "tenantdeck.yaml"], env=env,
                       cwd=pristine, check=True, capture_output=True)
        print(f"src: {opts.src}; load average {os.getloadavg()[0]:.1f}; limits {opts.timeout:.0f} s, "
              f"{opts.memory} MiB")
        print("| case | command | outcome | wall | CPU | peak RSS |\n|---|---|---|---|---|---|")
        for n, (name, setup) in enumerate(CASES.items()):
            for command in ("validate", "diff"):
                case = root / f"case{n}-{command}"
                shutil.copytree(pristine.parent, case, symlinks=True)
                draft = case / "repo" / "tenantdeck.yaml"
                setup(draft)
                outcome, wall, cpu, rss = run([command, "tenantdeck.yaml"], env, draft.parent, opts.timeout,
                                              opts.memory)
                print(f"| {name} | {command} | {outcome} | {wall:.2f} s | {cpu:.2f} s | {rss:.0f} MiB |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
