#!/usr/bin/env bash
# A Wi-Fi hotspot on the Pi itself, for tables where there is no Wi-Fi to join: the players' phones join
# the Pi's network and open http://10.42.0.1/ (or http://saint-malo.local/).
#
#   sudo saint-malo-hotspot on [PASSWORD]   start it now and at every boot (password: 8-63 characters;
#                                          without one, a random one is made and printed)
#   sudo saint-malo-hotspot off             stop it and forget it: the Pi joins its usual Wi-Fi again
#   sudo saint-malo-hotspot status          is it on, its name, password and address
#
# Uses NetworkManager (nmcli), Bookworm's network stack. install.sh installs this as
# /usr/local/sbin/saint-malo-hotspot. Environment: HOTSPOT_SSID (default "Saint-Malo-Table"),
# HOTSPOT_IFACE (default wlan0).
set -euo pipefail

CONNECTION=saint-malo-hotspot            # NetworkManager's name for it
SSID=${HOTSPOT_SSID:-Saint-Malo-Table}   # what phones see
IFACE=${HOTSPOT_IFACE:-wlan0}            # the Pi's built-in Wi-Fi

usage() {
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
}

need_nmcli() {
    if ! command -v nmcli >/dev/null 2>&1; then
        echo "hotspot: nmcli not found: NetworkManager is needed (sudo apt install network-manager)" >&2
        exit 1
    fi
}

need_root() {
    if [[ $EUID -ne 0 ]]; then
        echo "hotspot: run it as root: sudo $0 $*" >&2
        exit 1
    fi
}

exists() {
    nmcli -t -f NAME connection show | grep -qx "$CONNECTION"
}

hotspot_on() {
    local password=${1:-}
    if [[ -z "$password" ]]; then
        # 12 letters and digits: easy to type on a phone, too long to guess
        password=$(tr -dc 'A-HJ-NP-Za-km-z2-9' </dev/urandom | head -c 12 || true)
    fi
    # WPA2 needs 8 to 63 characters; nmcli would refuse with a less clear message.
    if [[ ${#password} -lt 8 || ${#password} -gt 63 ]]; then
        echo "hotspot: the password must be 8 to 63 characters" >&2
        exit 2
    fi
    if ! exists; then
        nmcli connection add type wifi ifname "$IFACE" con-name "$CONNECTION" ssid "$SSID" >/dev/null
    fi
    # Set every property each time, so that running "on" again repairs or updates the hotspot.
    #  mode ap + ipv4 shared: the Pi is the access point and hands out addresses (10.42.0.x) itself.
    #  band bg: 2.4 GHz, which every phone and the Pi's radio support, with the best range.
    #  ipv6 disabled: nothing to route to; phones are quicker to settle on an IPv4-only network.
    #  wpa-psk: a password, so that the neighbours' phones do not join the game table.
    #  autoconnect, low priority: the hotspot comes back at boot, but a known Wi-Fi network in range
    #   (higher priority) is normally preferred by NetworkManager.
    nmcli connection modify "$CONNECTION" \
        802-11-wireless.ssid "$SSID" \
        802-11-wireless.mode ap \
        802-11-wireless.band bg \
        ipv4.method shared \
        ipv6.method disabled \
        wifi-sec.key-mgmt wpa-psk \
        wifi-sec.psk "$password" \
        connection.autoconnect yes \
        connection.autoconnect-priority -50
    nmcli connection up "$CONNECTION" >/dev/null
    echo "Hotspot on: network \"$SSID\", password $password"
    echo "Phones: join it, then open http://10.42.0.1/ (or http://$(hostname).local/)"
}

hotspot_off() {
    if exists; then
        nmcli connection down "$CONNECTION" >/dev/null 2>&1 || true
        # Deleting (not only stopping) keeps it from coming back at the next boot.
        nmcli connection delete "$CONNECTION" >/dev/null
        echo "Hotspot off; the Pi joins its usual Wi-Fi when in range"
    else
        echo "Hotspot was not set up; nothing to do"
    fi
}

hotspot_status() {
    if ! exists; then
        echo "Hotspot: not set up"
        return 0
    fi
    local active password
    active=$(nmcli -t -f NAME connection show --active | grep -cx "$CONNECTION" || true)
    password=$(nmcli -s -g 802-11-wireless-security.psk connection show "$CONNECTION" 2>/dev/null || true)
    if [[ "$active" -gt 0 ]]; then
        echo "Hotspot: on"
    else
        echo "Hotspot: set up, not active (another network is in use)"
    fi
    echo "Network: $(nmcli -g 802-11-wireless.ssid connection show "$CONNECTION")"
    echo "Password: ${password:-(ask root)}"
    echo "Address: http://10.42.0.1/"
}

command=${1:-}
case "$command" in
    on)
        need_root "$@"
        need_nmcli
        hotspot_on "${2:-}"
        ;;
    off)
        need_root "$@"
        need_nmcli
        hotspot_off
        ;;
    status)
        need_nmcli
        hotspot_status
        ;;
    -h | --help | help)
        usage
        ;;
    *)
        usage >&2
        exit 2
        ;;
esac
