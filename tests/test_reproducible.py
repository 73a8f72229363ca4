"""Every chapter, executed a second time at smoke size with outbound network blocked inside the kernel,
glues exactly the values of the first execution (test_chapters.py) — timing figures (``bench_*``) aside.

The guard is an IPython startup file (IPYTHONDIR points at a temporary profile) that makes
``socket.connect`` and ``getaddrinfo`` refuse anything but loopback; ``HF_HUB_OFFLINE=1`` is set too.
"""

import json

import pytest

from embedbook import book

GUARD = '''
import socket
_LOCAL = ("127.", "::1", "localhost")
def _local(host):
    return not isinstance(host, str) or host.startswith(_LOCAL) or host == ""
_connect, _getaddrinfo = socket.socket.connect, socket.getaddrinfo
def _guarded_connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(address[0]):
        raise OSError(f"offline test: network access to {address} blocked")
    return _connect(self, address)
def _guarded_getaddrinfo(host, *args, **kwargs):
    if not _local(host):
        raise OSError(f"offline test: name lookup of {host!r} blocked")
    return _getaddrinfo(host, *args, **kwargs)
socket.socket.connect = _guarded_connect
socket.getaddrinfo = _guarded_getaddrinfo
'''


@pytest.fixture(scope="module")
def offline_profile(tmp_path_factory):
    root = tmp_path_factory.mktemp("ipython")
    startup = root / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-offline.py").write_text(GUARD)
    return root


def test_guard_blocks_outbound(offline_profile, tmp_path):
    ns = {}
    exec(GUARD, ns)
    with pytest.raises(OSError, match="blocked"):
        ns["socket"].create_connection(("192.0.2.1", 80), timeout=1)
    ns["socket"].socket.connect = ns["_connect"]  # undo for the rest of this process
    ns["socket"].getaddrinfo = ns["_getaddrinfo"]


# the verdicts chapter only re-runs the other chapters' checks, whose determinism is tested here already
RERUN = [name for name in book.chapters() if name != "16_verdicts"]


@pytest.mark.chapters
@pytest.mark.parametrize("name", RERUN)
def test_chapter_offline_and_deterministic(name, offline_profile, monkeypatch):
    first = book.ROOT / "_build" / "papermill" / f"{name}.ipynb"
    if not first.exists():
        first, _ = book.run_chapter(name, smoke=True, progress=False)
    monkeypatch.setenv("IPYTHONDIR", str(offline_profile))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    second, _ = book.run_chapter(name, smoke=True, progress=False, out_dir=book.ROOT / "_build" / "papermill-offline")
    a, b = book.glued_values(first), book.glued_values(second)
    a = {k: v for k, v in a.items() if not book.is_timing(k)}
    b = {k: v for k, v in b.items() if not book.is_timing(k)}
    assert a, f"{name} glued no values"
    differ = {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}
    assert not differ, f"{name}: glued values changed between two executions: {json.dumps(differ, ensure_ascii=False)[:500]}"
