"""Files a draft names (issue 32 items 1, 2 and 8), through the real commands against the local sandbox.

A pull request controls the draft and every file beside it. A certificate that is a link out of the draft's folder
(to a CI secret), a ``../`` path, a link to ``/dev/zero``, a FIFO, a folder, a missing, oversized or empty file is
a located error from ``validate`` (at the ``p8:`` line) and from ``diff`` and ``push`` before anything is sent: the
sandbox's certificate store is unchanged, and none of it is called a conflict. Each command runs under a timeout:
a regression that blocks on the FIFO fails instead of hanging the suite.

A file that is where it may be but is not a well-formed key is refused the same way (trial K, K5: an empty PEM
block, a body that is not base64 or not DER, a key or bundle cut short passed ``validate`` and failed at the
upload); a real key and bundle (made by openssl when it is installed) and macOS Keychain's BER bundle still pass.
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from tenantdeck import exitcodes
from tenantdeck.cli import cli
from tenantdeck.models.app import PushCertificates
from tests.fuzzing import examples
from tests.sync.helpers_push import app_named, edit_draft
from tests.test_hostile_files import zero_device


def pem(der: bytes) -> bytes:
    """``der`` as a .p8 file holds it: a PEM PRIVATE KEY block."""
    return b"-----BEGIN PRIVATE KEY-----\n" + base64.encodebytes(der) + b"-----END PRIVATE KEY-----\n"


#: a P-256 PKCS#8 key as an APNs .p8 holds one (150 bytes, every length right: the shape the service parses), whose
#: private and public values are the text "NotARealKey" and "NotARealPublicKey": no key at all
P8_DER = (bytes.fromhex("308193020100301306072a8648ce3d020106082a8648ce3d030107047930770201010420")
          + b"NotARealKey".ljust(32, b".") + bytes.fromhex("a00a06082a8648ce3d030107a14403420004")
          + b"NotARealPublicKey".ljust(64, b"."))
P8 = pem(P8_DER)
#: a PKCS#12 PFX's outer shape (SEQUENCE { INTEGER 3, authSafe, macData }) around no key
P12 = bytes.fromhex("3015020103") + bytes.fromhex("3010") + b"NotARealBundle!!"
#: the same as BER with indefinite lengths (0x80, closed by two zero bytes), as macOS Keychain exports a .p12
P12_BER = bytes.fromhex("3080020103") + bytes.fromhex("3080") + b"\x04\x10NotARealBundle!!" + b"\0" * 4
APP = "Acme Support"
# spelt here rather than imported, so that this file runs (and fails) against the code before the fix too
ENV_DIRS = "TENANTDECK_CERTIFICATE_DIRS"
MAX_BYTES = 64 * 1024

pytestmark = pytest.mark.timeout(60)


def test_the_names_this_file_spells_are_the_modules() -> None:
    from tenantdeck.models import certfiles

    assert (certfiles.ENV_DIRS, certfiles.MAX_BYTES) == (ENV_DIRS, MAX_BYTES)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"TENANTDECK_DATA_DIR": str(tmp_path / "data"), "TENANTDECK_CONFIG_DIR": str(tmp_path / "config"),
            "TENANTDECK_BASE_URL": "", "NO_COLOR": "1", ENV_DIRS: "",
            "TENANTDECK_ACME_SUPPORT_TWILIO_AUTH_TOKEN": "sandboxfaketoken0000000000000000"}


def tenantdeck(*args: str, env: dict[str, str]) -> Result:
    return CliRunner().invoke(cli, list(args), env=env)


@pytest.fixture
def draft(tmp_path: Path, env: dict[str, str]) -> Path:
    path = tmp_path / "repo" / "tenantdeck.yaml"
    path.parent.mkdir()
    result = tenantdeck("pull", "--draft", str(path), env=env)
    assert result.exit_code == 0, result.output
    return path


def stored_certificates(env: dict[str, str]) -> dict[str, bool]:
    """What the sandbox holds for the app: the proof that nothing was uploaded."""
    from tenantdeck.targets import local_target

    target = local_target(env)

    async def go() -> dict[str, bool]:
        async with target.client() as client:
            app = next(a for a in await client.list_apps() if a.name == APP)
            return dict(await client.query_certificates(app.id))

    return asyncio.run(go())


def _outside(repo: Path) -> str:
    secret = repo.parent / "ci-secret.p8"
    secret.write_bytes(P8)  # a valid key: a regression would upload it, and the sandbox would store it
    (repo / "certs").mkdir()
    (repo / "certs" / "apns.p8").symlink_to(secret)
    return "certs/apns.p8"


def _dotdot(repo: Path) -> str:
    (repo.parent / "outside.p8").write_bytes(P8)
    return "../outside.p8"


def _in_certs(make: Callable[[Path], None], name: str = "apns.p8") -> Callable[[Path], str]:
    def setup(repo: Path) -> str:
        (repo / "certs").mkdir()
        make(repo / "certs" / name)
        return f"certs/{name}"
    return setup


def _hidden_target(folder: str, name: str) -> Callable[[Path], str]:
    """``certs/apns.p8`` linked to ``FOLDER/NAME`` in the draft's folder, which holds a valid key: only the rule
    on hidden files and folders can refuse it (trial J, J4: ``.git/config``, the workspace's secret key)."""
    def setup(repo: Path) -> str:
        target = repo / folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(P8)
        (repo / "certs").mkdir()
        (repo / "certs" / "apns.p8").symlink_to(Path("..") / folder / name)
        return "certs/apns.p8"
    return setup


def _in_hidden_folder(repo: Path) -> str:
    (repo / ".secrets").mkdir()
    (repo / ".secrets" / "apns.p8").write_bytes(P8)
    return ".secrets/apns.p8"


#: what ``actions/checkout`` leaves in ``.git/config``: not a key, so a link in a folder not hidden is refused too
GIT_CONFIG = b'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0LXRva2Vu\n'

#: case -> (what the draft writes, made in the draft's folder; what the error says)
CASES: dict[str, tuple[Callable[[Path], str], str]] = {
    "symlink into .git": (_hidden_target(".git", "config"), "leads into '.git', a hidden file or folder"),
    "symlink to the workspace's key": (_hidden_target(".tenantdeck/tenantdeck", "secret.key"),
                                       "leads into '.tenantdeck', a hidden file or folder"),
    "symlink to .env": (_hidden_target("", ".env"), "leads into '.env', a hidden file or folder"),
    "a hidden folder": (_in_hidden_folder, "leads into '.secrets', a hidden file or folder"),
    "not a key": (_in_certs(lambda p: p.write_bytes(GIT_CONFIG)), "holds no '-----BEGIN PRIVATE KEY-----' block"),
    "symlink to a file outside": (_outside, "outside the draft's folder"),
    "../outside.p8": (_dotdot, "outside the draft's folder"),
    "symlink to a zero device": (_in_certs(lambda p: p.symlink_to(zero_device(p.parent))), "character device"),
    "FIFO": (_in_certs(os.mkfifo), "named pipe (FIFO)"),
    "directory": (_in_certs(lambda p: p.mkdir()), "is a directory"),
    "missing": (lambda repo: "certs/missing.p8", "no such file"),
    "oversized": (_in_certs(lambda p: p.write_bytes(b"x" * (MAX_BYTES + 1))),
                  f"too large ({MAX_BYTES + 1} bytes; at most {MAX_BYTES})"),
    "empty": (_in_certs(lambda p: p.write_bytes(b"")), "is empty"),
    # trial K, K5: where it may be, but not a well-formed key or bundle
    "an empty PEM block": (_in_certs(lambda p: p.write_bytes(pem(b""))), "its PRIVATE KEY block is empty"),
    "a PEM block of blank lines": (_in_certs(lambda p: p.write_bytes(P8[:28] + b"\n \n\t\n" + P8[-26:])),
                                   "its PRIVATE KEY block is empty"),
    "a PEM block that is not base64": (_in_certs(lambda p: p.write_bytes(P8.replace(b"MIGT", b"MI*T"))),
                                       "its PRIVATE KEY block is not valid base64"),
    "a PEM block with a base64 length cut": (_in_certs(lambda p: p.write_bytes(pem(P8_DER).replace(b"MIGT", b"MIG"))),
                                             "its PRIVATE KEY block is not valid base64"),
    "base64 of bytes that are not DER": (_in_certs(lambda p: p.write_bytes(pem(b"just some text"))),
                                         "is not a PKCS#8 key: it does not begin with a DER SEQUENCE"),
    "a key cut short": (_in_certs(lambda p: p.write_bytes(pem(P8_DER[:-40]))),
                        "is not a PKCS#8 key: its DER header says 150 bytes, the block has 110: was it cut short?"),
    "a key with bytes after it": (_in_certs(lambda p: p.write_bytes(pem(P8_DER + b"\0"))),
                                  "its DER header says 150 bytes, the block has 151"),
    "a SEQUENCE with no version": (_in_certs(lambda p: p.write_bytes(pem(b"\x30\x04\x04\x02no"))),
                                   "does not begin with a version number"),
    "a .p12 cut short": (_in_certs(lambda p: p.write_bytes(P12[:-3]), "apns.p12"),
                         "is not a whole .p12 bundle (PKCS#12 is binary DER): its DER header says 23 bytes, the "
                         "file has 20: was it cut short?"),
    "a .p12 with a wrong outer length": (_in_certs(lambda p: p.write_bytes(b"\x30\x7f" + P12[2:]), "apns.p12"),
                                         "its DER header says 129 bytes, the file has 23"),
    "a .p12 converted to text": (_in_certs(lambda p: p.write_bytes(P12 + b"\n"), "apns.p12"),
                                 "its DER header says 23 bytes, the file has 24: was it followed by other bytes?"),
    "a BER .p12 cut short": (_in_certs(lambda p: p.write_bytes(P12_BER[:-3]), "apns.p12"),
                             "its SEQUENCE of unstated length has no end mark"),
    # trial L, L4: the whole file is sent, so nothing but the one block may be in it
    "text before the PEM block": (_in_certs(lambda p: p.write_bytes(b"AWS_SECRET_ACCESS_KEY=topsecret123\n" + P8)),
                                  "holds other text before its PRIVATE KEY block (34 bytes)"),
    "text after the PEM block": (_in_certs(lambda p: p.write_bytes(P8 + b"\nGITHUB_TOKEN=ghp_leakme\n")),
                                 "holds other text after its PRIVATE KEY block (23 bytes)"),
    "two PEM blocks": (_in_certs(lambda p: p.write_bytes(P8 + b"\n" + P8)), "holds other text after its PRIVATE KEY"),
    "a .p8 named as the .p12": (_in_certs(lambda p: p.write_bytes(P8), "apns.p12"),
                                "is not a .p12 bundle (PKCS#12 is binary DER, starting with the byte 0x30)"),
}


def _kind(written: str) -> str:
    """The key a file is named under: its suffix's (``p12`` or ``p8``)."""
    return "p12" if written.endswith(".p12") else "p8"


def _use(draft: Path, written: str) -> int:
    """Name ``written`` as the app's certificate of its kind; returns the 1-based line of its ``p8:`` or ``p12:``
    key."""
    kind = _kind(written)
    certs = PushCertificates(**{kind: written})
    edit_draft(draft, lambda d: app_named(d, APP).__setattr__("push_certificates", certs))
    lines = draft.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip().startswith(f"{kind}:"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_certificate_is_a_located_error_and_nothing_is_sent(
        case: str, draft: Path, env: dict[str, str]) -> None:
    setup, says = CASES[case]
    before = stored_certificates(env)
    written = setup(draft.parent)
    line = _use(draft, written)
    index = [a.name for a in loaded_without_checks(draft).apps].index(APP)
    where = f"{draft}:{line}:"
    key = f"apps[{index}].push_certificates.{_kind(written)}"

    checked = tenantdeck("validate", str(draft), env=env)
    assert checked.exit_code == exitcodes.ERROR, checked.output
    (located,) = [ln for ln in checked.stdout.splitlines() if key in ln]
    assert located.startswith(where) and ": error: " in located and says in located, located
    assert "invalid" in checked.stderr

    for command in (["diff", str(draft)], ["plan", str(draft), "-o", str(draft.parent / "plan.json")],
                    ["push", "--draft", str(draft), "--yes"]):
        result = tenantdeck(*command, env=env)
        assert result.exit_code == exitcodes.ERROR, (command, result.output)
        assert says in result.output and key in result.output, (command, result.output)
        assert "conflict" not in result.output.lower(), (command, result.output)
        assert "Traceback" not in result.output
    assert stored_certificates(env) == before


def loaded_without_checks(draft: Path) -> object:
    from tenantdeck.draft import load_draft

    result = load_draft(draft)
    assert result.draft is not None
    return result.draft


def test_certificates_kept_elsewhere_are_read_only_with_the_explicit_opt_in(
        draft: Path, env: dict[str, str]) -> None:
    """``TENANTDECK_CERTIFICATE_DIRS`` (set by whoever runs the command, never read from a file) names the folder:
    the same link is then uploaded."""
    written = _outside(draft.parent)
    _use(draft, written)
    assert tenantdeck("validate", str(draft), env=env).exit_code == exitcodes.ERROR
    allowed = env | {ENV_DIRS: str(draft.parent.parent)}
    assert tenantdeck("validate", str(draft), env=allowed).exit_code == exitcodes.OK
    result = tenantdeck("push", "--draft", str(draft), "--yes", env=allowed)
    assert result.exit_code == exitcodes.OK, result.output
    assert stored_certificates(env)["p8"] is True
    assert tenantdeck("diff", str(draft), env=allowed).exit_code == exitcodes.OK  # uploaded: in sync


def test_a_hidden_folder_named_on_purpose_is_allowed_and_hides_nothing_else(draft: Path, env: dict[str, str]) -> None:
    """``TENANTDECK_CERTIFICATE_DIRS=repo/.certs``: whoever runs the command allows that folder as a whole, though
    it is hidden inside the draft's folder (the draft's folder was matched first, and ``.certs`` refused); a link
    in it into ``repo/.git`` is still refused, hidden below the draft's folder, the innermost it lies in."""
    certs = draft.parent / ".certs"
    certs.mkdir()
    (certs / "apns.p8").write_bytes(P8)
    _use(draft, ".certs/apns.p8")
    refused = tenantdeck("validate", str(draft), env=env)
    assert refused.exit_code == exitcodes.ERROR and "'.certs'" in refused.output, refused.output
    allowed = env | {ENV_DIRS: str(certs)}
    assert tenantdeck("validate", str(draft), env=allowed).exit_code == exitcodes.OK
    (draft.parent / ".git").mkdir(exist_ok=True)
    (draft.parent / ".git" / "config").write_bytes(P8)  # a valid key: only the hidden rule refuses it
    (certs / "apns.p8").unlink()
    (certs / "apns.p8").symlink_to(draft.parent / ".git" / "config")
    still = tenantdeck("validate", str(draft), env=allowed)
    assert still.exit_code == exitcodes.ERROR and "'.git'" in still.output, still.output


def test_a_certificate_inside_the_drafts_folder_is_uploaded(draft: Path, env: dict[str, str]) -> None:
    (draft.parent / "certs").mkdir()
    (draft.parent / "certs" / "apns.p8").write_bytes(P8)
    _use(draft, "certs/apns.p8")
    assert tenantdeck("validate", str(draft), env=env).exit_code == exitcodes.OK
    result = tenantdeck("push", "--draft", str(draft), "--yes", env=env)
    assert result.exit_code == exitcodes.OK, result.output
    assert stored_certificates(env)["p8"] is True


@pytest.mark.parametrize("kind", ["FIFO", "zero device"])
@pytest.mark.parametrize("which", ["draft", "policies file"])
def test_a_draft_or_policies_file_that_is_a_fifo_or_a_device_is_an_error_not_a_hang(
        which: str, kind: str, draft: Path, env: dict[str, str]) -> None:
    hostile = draft if which == "draft" else draft.with_name("tenantdeck.policies.yaml")
    if which == "draft":
        hostile.unlink()
    if kind == "FIFO":
        os.mkfifo(hostile)
    else:
        hostile.symlink_to(zero_device(draft.parent))
    says = "named pipe (FIFO)" if kind == "FIFO" else "character device"
    for command in (["validate", str(draft)], ["diff", str(draft)]):
        result = tenantdeck(*command, env=env)
        # diff notes a policies file it cannot use (as it does one with a syntax error) and still diffs
        expected = exitcodes.OK if which == "policies file" and command[0] == "diff" else exitcodes.ERROR
        assert result.exit_code == expected, (command, result.output)
        assert says in result.output and str(hostile) in result.output, (command, result.output)
        assert "Traceback" not in result.output


def _openssl(folder: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=30)


def _openssl_key(folder: Path) -> None:
    """A fresh P-256 key as ``openssl genpkey`` writes it: PKCS#8 PEM, as an APNs .p8 is."""
    _openssl(folder, "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "apns.p8")


def _openssl_bundle(folder: Path) -> None:
    """A certificate and its key as ``openssl pkcs12 -export`` bundles them (DER, definite lengths)."""
    _openssl_key(folder)
    _openssl(folder, "req", "-new", "-x509", "-key", "apns.p8", "-subj", "/CN=tenantdeck test", "-days", "1",
             "-out", "cert.pem")
    _openssl(folder, "pkcs12", "-export", "-inkey", "apns.p8", "-in", "cert.pem", "-passout", "pass:test",
             "-out", "apns.p12")


needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")

#: case -> (makes the file in the draft's folder, the name the draft writes)
WELL_FORMED: dict[str, tuple[Callable[[Path], None], str]] = {
    "a key made by openssl": (_openssl_key, "apns.p8"),
    "a bundle made by openssl pkcs12 -export": (_openssl_bundle, "apns.p12"),
    "the test's stand-in key": (lambda folder: (folder / "apns.p8").write_bytes(P8), "apns.p8"),
    "a key in CRLF lines of 64": (lambda folder: (folder / "apns.p8").write_bytes(
        b"-----BEGIN PRIVATE KEY-----\r\n" + b"\r\n".join(re.findall(rb".{1,64}", base64.b64encode(P8_DER)))
        + b"\r\n-----END PRIVATE KEY-----\r\n"), "apns.p8"),
    "a Keychain bundle (BER, indefinite lengths)": (lambda folder: (folder / "apns.p12").write_bytes(P12_BER),
                                                    "apns.p12"),
}


@pytest.mark.parametrize("case", [pytest.param(c, marks=needs_openssl) if "openssl" in c else c
                                  for c in sorted(WELL_FORMED)])
def test_a_well_formed_key_or_bundle_passes_validate_and_is_uploaded(
        case: str, draft: Path, env: dict[str, str]) -> None:
    make, name = WELL_FORMED[case]
    (draft.parent / "certs").mkdir()
    make(draft.parent / "certs")
    _use(draft, f"certs/{name}")
    checked = tenantdeck("validate", str(draft), env=env)
    assert checked.exit_code == exitcodes.OK, checked.output
    result = tenantdeck("push", "--draft", str(draft), "--yes", env=env)
    assert result.exit_code == exitcodes.OK, result.output
    assert stored_certificates(env)[_kind(name)] is True


def _as_pem(body: bytes) -> bytes:
    return b"-----BEGIN PRIVATE KEY-----\n" + body + b"\n-----END PRIVATE KEY-----\n"


#: bytes of every kind the check reads: anything; DER-looking (a SEQUENCE header, an INTEGER after it); a PEM
#: block around anything, around base64 of anything or of DER-looking bytes; the well-formed samples cut or flipped
_DERISH = st.builds(lambda head, rest: head + rest, st.sampled_from([b"\x30", b"\x30\x80", b"\x30\x82", b"\x30\x81",
                                                                   b"\x30\x84\xff\xff", b"\x30\x03\x02",
                                                                   b"\x30\x80\x02\x80"]), st.binary(max_size=64))
_SAMPLES = st.sampled_from([P8, P8_DER, P12, P12_BER])
_BYTES = st.one_of(
    st.binary(max_size=200), _DERISH,
    st.binary(max_size=120).map(_as_pem),
    st.one_of(st.binary(max_size=120), _DERISH).map(lambda b: _as_pem(base64.b64encode(b))),
    st.builds(lambda data, cut: data[:cut], _SAMPLES, st.integers(0, 200)),
    st.builds(lambda data, at, value: data[:at] + bytes([value]) + data[at + 1:], _SAMPLES, st.integers(0, 170),
              st.integers(0, 255)),
)


@settings(max_examples=examples(300), deadline=None)
@given(_BYTES)
def test_no_bytes_make_the_check_raise_or_say_a_byte_of_the_file(data: bytes) -> None:
    """The shape check gives a reason or None for any file, never an exception (which would be a traceback in
    ``validate``), and its reason is the module's words and numbers, never text of the file."""
    from tenantdeck.models.certfiles import shape_problem

    for kind in ("p8", "p12"):
        reason = shape_problem(kind, data)
        assert reason is None or isinstance(reason, str)
        if reason is not None:
            words = set(re.findall(r"[A-Za-z0-9+/=]{6,}", data.decode("latin-1")))
            assert not any(word in reason for word in words if not word.isdigit()
                           and word not in ("PRIVATE", "PKCS#8", "SEQUENCE", "INTEGER")), (kind, reason)
