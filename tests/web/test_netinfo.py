"""Where phones open the dashboard: LAN addresses (never loopback), and the banner that prints them."""

from __future__ import annotations

import ipaddress

from web.netinfo import lan_addresses, phone_urls
from web.serve import banner


def test_lan_addresses_are_never_loopback_and_all_interfaces_lists_them():
    for address in lan_addresses():
        ip = ipaddress.ip_address(address)
        assert not ip.is_loopback and not ip.is_unspecified
    assert phone_urls("0.0.0.0", 8000) == [f"http://{a}:8000/" for a in lan_addresses()]
    assert phone_urls("127.0.0.1", 8000) == []  # only this machine can connect: nothing for phones
    assert phone_urls("192.168.1.20", 80) == ["http://192.168.1.20:80/"]


def test_the_banner_gives_phones_an_address_the_pin_and_how_to_show_it_again():
    text = banner("123456", "192.168.1.20", 8000, "data", "demo")
    assert "phones:    http://192.168.1.20:8000/" in text
    assert "TABLE PIN: 123456" in text and "companion pin --data data" in text
    assert "\u2588" in text  # the QR code, in block characters
    assert "phones:" not in banner("123456", "127.0.0.1", 8000, "data", "demo")
