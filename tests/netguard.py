"""A small guard that refuses every non-loopback network connection.

``install()`` patches ``socket.socket.connect``, ``connect_ex``, ``sendto`` and
``socket.create_connection``: a loopback address (127.0.0.0/8, ::1,
'localhost') or a Unix socket passes, anything else raises
:class:`NetworkBlocked` *before* any packet or name lookup leaves the machine,
and is recorded in ``guard.blocked`` (so code that swallows the error is still
caught).  ``uninstall()`` restores the originals.

The file is self-contained (standard library only) so the same source can be
executed inside a notebook kernel or a subprocess.
"""

import ipaddress
import socket


class NetworkBlocked(RuntimeError):
    """Raised for an attempt to reach a non-loopback address."""


def is_loopback(address):
    """True for a Unix socket path or a loopback host; False for anything else."""
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    if not isinstance(address, tuple) or not address:
        return False
    host = address[0]
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:  # a host name would need a lookup
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


class Guard:
    def __init__(self):
        self.blocked = []
        self._saved = None

    def _check(self, what, address):
        if not is_loopback(address):
            self.blocked.append((what, address))
            raise NetworkBlocked(
                f"network access blocked in the course's tests: {what} to "
                f"{address!r} (only loopback is allowed)"
            )

    def install(self):
        guard = self
        cls = socket.socket
        self._saved = (cls.connect, cls.connect_ex, cls.sendto, socket.create_connection)
        connect, connect_ex, sendto, create_connection = self._saved

        def guarded_connect(sock, address):
            if sock.family != getattr(socket, "AF_UNIX", None):
                guard._check("connect", address)
            return connect(sock, address)

        def guarded_connect_ex(sock, address):
            if sock.family != getattr(socket, "AF_UNIX", None):
                guard._check("connect_ex", address)
            return connect_ex(sock, address)

        def guarded_sendto(sock, data, *args):
            if sock.family != getattr(socket, "AF_UNIX", None) and args:
                guard._check("sendto", args[-1])
            return sendto(sock, data, *args)

        def guarded_create_connection(address, *args, **kwargs):
            guard._check("create_connection", address)
            return create_connection(address, *args, **kwargs)

        cls.connect, cls.connect_ex, cls.sendto = (
            guarded_connect,
            guarded_connect_ex,
            guarded_sendto,
        )
        socket.create_connection = guarded_create_connection
        return self

    def uninstall(self):
        if self._saved is not None:
            cls = socket.socket
            cls.connect, cls.connect_ex, cls.sendto, socket.create_connection = self._saved
            self._saved = None


def install():
    """Install a new guard and return it."""
    return Guard().install()
