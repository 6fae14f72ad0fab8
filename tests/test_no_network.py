"""The network guard works: non-loopback connections are refused, loopback passes."""

import socket
import subprocess
import sys

import pytest

import netguard
from conftest import ROOT

OUTSIDE = ("10.255.255.1", 80)


def ipv6_socket():
    try:
        return socket.socket(socket.AF_INET6)
    except OSError:
        pytest.skip("no IPv6 on this machine")


@pytest.mark.parametrize(
    "attempt",
    [
        lambda: socket.create_connection(OUTSIDE, timeout=0.5),
        lambda: socket.create_connection(
            ("example.org", 443), timeout=0.5
        ),  # no DNS lookup either
        lambda: socket.socket().connect(OUTSIDE),
        lambda: socket.socket().connect_ex(OUTSIDE),
        lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("8.8.8.8", 53)),
        lambda: ipv6_socket().connect(("2001:db8::1", 80, 0, 0)),
    ],
    ids=["create_connection", "host-name", "connect", "connect_ex", "sendto", "ipv6"],
)
def test_the_guard_refuses_the_outside(no_network, attempt):
    with pytest.raises(netguard.NetworkBlocked):
        attempt()
    assert len(no_network.blocked) == 1
    no_network.blocked.clear()  # expected here; any other test would fail on it


def test_a_swallowed_attempt_is_still_recorded(no_network):
    try:
        socket.create_connection(OUTSIDE, timeout=0.5)
    except Exception:
        pass
    assert no_network.blocked == [("create_connection", OUTSIDE)]
    no_network.blocked.clear()


def test_loopback_passes():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    try:
        client = socket.create_connection(server.getsockname(), timeout=2)
        client.close()
    finally:
        server.close()


@pytest.mark.parametrize(
    "address, ok",
    [
        (("127.0.0.1", 1), True),
        (("127.8.9.1", 1), True),
        (("localhost", 1), True),
        (("::1", 1, 0, 0), True),
        (("::ffff:127.0.0.1", 1), True),
        ("/tmp/kernel.sock", True),
        (("10.255.255.1", 80), False),
        (("0.0.0.0", 80), False),
        (("example.org", 80), False),
        (("::ffff:10.0.0.1", 1), False),
    ],
)
def test_is_loopback(address, ok):
    assert netguard.is_loopback(address) is ok


def test_uninstall_restores_the_originals():
    before = (socket.socket.connect, socket.create_connection)
    guard = netguard.install()
    assert socket.socket.connect is not before[0]
    guard.uninstall()
    assert (socket.socket.connect, socket.create_connection) == before


def test_the_guard_source_runs_on_its_own_in_a_subprocess():
    # the notebooks' kernels and the determinism subprocesses execute this same file
    code = (
        f"exec(open({str(ROOT / 'tests' / 'netguard.py')!r}).read()); g = install()\n"
        "import socket\n"
        "try:\n    socket.create_connection(('10.255.255.1', 80), timeout=0.5)\n"
        "except NetworkBlocked:\n    print('blocked')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout == "blocked\n" and out.returncode == 0, out.stderr
