"""Proxies from the environment, read as the openai SDK (httpx with ``trust_env``) reads them.

``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``ALL_PROXY`` (either case) name an ``http://[user:pass@]host:port``
proxy; ``NO_PROXY`` lists hosts (``example.com`` also covers its subdomains, ``.example.com`` only
the subdomains, ``host:port`` one port, ``*`` everything) that go direct. An ``https`` endpoint is
reached through a ``CONNECT`` tunnel, TLS end to end; an ``http`` endpoint through a request in
absolute form (``POST http://host:port/path``). Not supported: ``https://`` or ``socks`` proxy URLs
(refused with a message), CIDR ranges in ``NO_PROXY``.
"""

from __future__ import annotations

import asyncio
import base64
import socket
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit
from urllib.request import getproxies_environment

from robustcall.core import InputError

proxy_bypass_environment: Callable[[str, dict[str, str]], bool] = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
"""``NO_PROXY`` matching as the standard library documents it (not in typeshed)."""


class ProxyError(OSError):
    """The proxy refused or broke the tunnel (an ``OSError``: the caller reports it as a connection error)."""


@dataclass(frozen=True)
class Proxy:
    host: str
    port: int
    authorization: str | None
    """The ``Proxy-Authorization`` header value when the proxy URL carries credentials."""

    def header(self) -> str:
        return f"Proxy-Authorization: {self.authorization}\r\n" if self.authorization else ""


def proxy_for(scheme: str, host: str, port: int) -> Proxy | None:
    """The proxy the environment names for ``scheme://host:port``, or ``None`` to go direct."""
    proxies = getproxies_environment()  # lower-cased scheme -> URL; includes ``no``
    url = proxies.get(scheme) or proxies.get("all")
    if not url:
        return None
    if proxy_bypass_environment(host, proxies) or proxy_bypass_environment(f"{host}:{port}", proxies):
        return None
    if "://" not in url:
        url = f"http://{url}"
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise InputError(
            f"unsupported proxy {url!r} for {scheme}:// (from the proxy environment variables): "
            "only http:// proxies are supported",
            hint=f"use an http:// proxy, or add {host} to NO_PROXY",
        )
    auth = None
    if parts.username is not None:
        token = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        auth = f"Basic {base64.b64encode(token).decode('ascii')}"
    return Proxy(parts.hostname, parts.port or 80, auth)


async def open_tunnel(proxy: Proxy, host: str, port: int) -> socket.socket:
    """A socket connected through ``proxy`` to ``host:port`` by ``CONNECT`` (ready for TLS).
    Raises ``OSError`` (``ProxyError`` when the proxy answers other than 2xx)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(proxy.host, proxy.port, type=socket.SOCK_STREAM)
    if not infos:
        raise ProxyError(f"cannot resolve proxy {proxy.host}")
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setblocking(False)
        await loop.sock_connect(sock, address)
        target = f"{host}:{port}"
        request = f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n{proxy.header()}\r\n"
        await loop.sock_sendall(sock, request.encode("latin-1"))
        head = b""
        while b"\r\n\r\n" not in head:  # read the reply head byte-exactly: what follows belongs to TLS
            chunk = await loop.sock_recv(sock, 1)
            if not chunk:
                raise ProxyError(f"proxy {proxy.host}:{proxy.port} closed the connection during CONNECT")
            head += chunk
            if len(head) > 65536:
                raise ProxyError(f"proxy {proxy.host}:{proxy.port} sent an oversized CONNECT reply")
        status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        fields = status_line.split(" ", 2)
        if len(fields) < 2 or not fields[1].startswith("2"):
            raise ProxyError(f"proxy {proxy.host}:{proxy.port} refused CONNECT {target}: {status_line}")
    except BaseException:
        sock.close()
        raise
    return sock
