"""Where phones reach the dashboard: the host's LAN addresses and a QR code for the first of them."""

from __future__ import annotations

import contextlib
import ipaddress
import socket

import segno


def lan_addresses() -> list[str]:
    """IPv4 addresses other machines on the network can use (no loopback), best guess first.

    The default route's source address comes first (a UDP socket "connected" to a private address sends
    nothing), then any other address the host name resolves to."""
    found: list[str] = []
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.255.255.255", 1))
        found.append(probe.getsockname()[0])
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    out: list[str] = []
    for address in found:
        with contextlib.suppress(ValueError):
            ip = ipaddress.ip_address(address)
            if not (ip.is_loopback or ip.is_unspecified or ip.is_link_local) and address not in out:
                out.append(address)
    return out


def phone_urls(host: str, port: int) -> list[str]:
    """The dashboard's addresses for phones: the LAN addresses when serving on all interfaces."""
    if host in ("0.0.0.0", "::", ""):
        return [f"http://{a}:{port}/" for a in lan_addresses()]
    if host in ("127.0.0.1", "localhost", "::1"):
        return []  # only this machine can connect
    shown = f"[{host}]" if ":" in host else host
    return [f"http://{shown}:{port}/"]


def qr_svg(url: str) -> str:
    """The URL as an inline SVG QR code (no external file, allowed by the page's CSP)."""
    return segno.make(url, error="m").svg_inline(scale=5, dark="#2b2620", light="#ffffff")


def qr_text(url: str) -> str:
    """The URL as a QR code in terminal characters, for the banner."""
    import io

    buffer = io.StringIO()
    segno.make(url, error="m").terminal(out=buffer, compact=True)
    return buffer.getvalue()
