#!/usr/bin/env bash
# Turns a fresh Raspberry Pi OS (Bookworm) into a Saint Malo table companion.
#
#   sudo firmware_config/install.sh            # from the top of a copy of the repository
#
# Safe to run again: it is also how to update (pull the repository, run it again). Game data and the
# calibrated camera settings in /var/lib/saint-malo-companion are never touched.
#
# Options (environment variables):
#   COMPANION_HOSTNAME=saint-malo   the Pi's name on the network: http://<name>.local/ (empty: leave as is)
#   COMPANION_PORT=80               the dashboard's port (80: no port in the address)
set -euo pipefail

usage() {
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
}

if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
    usage
    exit 0
fi
if [[ $# -gt 0 ]]; then
    echo "install.sh: unknown argument '$1' (try --help)" >&2
    exit 2
fi

# --- names, in one place ----------------------------------------------------------------------------
APP=saint-malo-companion
APP_USER=saint-malo                       # the unprivileged user the service runs as
PREFIX=/opt/$APP                          # program files: replaced on every update
SRC=$PREFIX/src                           # a copy of the repository (the service must not read /home)
VENV=$PREFIX/venv
DATA_DIR=/var/lib/$APP                    # games and calibration: kept across updates
ETC_DIR=/etc/$APP                         # the camera settings shipped with the program
WANTED_HOSTNAME=${COMPANION_HOSTNAME-saint-malo}
PORT=${COMPANION_PORT:-80}
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HERE=$REPO_DIR/firmware_config

say() { printf '\n==> %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }

# Everything below changes the system, so it needs root; say so plainly instead of failing halfway.
if [[ $EUID -ne 0 ]]; then
    echo "install.sh: run it as root: sudo $0" >&2
    exit 1
fi
if [[ ! -f "$REPO_DIR/pyproject.toml" || ! -f "$HERE/$APP.service" ]]; then
    echo "install.sh: run it from a complete copy of the repository (pyproject.toml not found)" >&2
    exit 1
fi
# Written and tested for Bookworm; another release probably works but is worth a warning.
# shellcheck disable=SC1091  # os-release exists on every systemd system; shellcheck cannot follow it
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")
if [[ "$codename" != "bookworm" ]]; then
    warn "this is '$codename', not Raspberry Pi OS Bookworm; carrying on"
fi

# --- 1. system packages ---------------------------------------------------------------------------
say "Installing system packages"
# python3-picamera2: the Pi camera library with libcamera's Python bindings; it is only packaged by
#   Raspberry Pi (not on PyPI in a usable form), so it comes from apt and the venv sees it.
# python3-venv: an isolated environment for our own dependencies, so apt's Python stays untouched.
# avahi-daemon: answers for saint-malo.local and advertises the dashboard (mDNS).
# network-manager: Bookworm's network stack; hotspot.sh drives it with nmcli.
# rsync: copies the program so that an update also removes deleted files.
# --no-install-recommends: picamera2 recommends a desktop preview stack a table Pi never shows.
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
    python3-picamera2 python3-venv python3-pip avahi-daemon network-manager rsync

# --- 2. the service user and its data directory ------------------------------------------------------
say "Creating user $APP_USER and $DATA_DIR"
# A system user with no login and no home of its own: the service cannot do anything a person could.
if ! id -u "$APP_USER" >/dev/null 2>&1; then
    useradd --system --user-group --home-dir "$DATA_DIR" --no-create-home \
        --shell /usr/sbin/nologin --comment "Saint Malo table companion" "$APP_USER"
fi
# video: the camera's device nodes; also lets `sudo -u saint-malo ... calibrate` open the camera.
usermod -a -G video "$APP_USER"
# The data directory survives updates and reinstalls: created if missing, never emptied.
install -d -o "$APP_USER" -g "$APP_USER" -m 0750 "$DATA_DIR"

# --- 3. the program ----------------------------------------------------------------------------------
say "Copying the program to $SRC"
install -d -m 0755 "$PREFIX"
# A copy, not a link to the checkout: the service runs with ProtectHome=yes and cannot read /home.
rsync -a --delete --exclude '.git/' --exclude '.venv/' --exclude '__pycache__/' \
    --exclude '*.egg-info/' --exclude 'build/' "$REPO_DIR/" "$SRC/"

say "Installing the Python environment in $VENV"
# --system-site-packages: picamera2 and libcamera from apt must be importable in the venv.
if [[ ! -x "$VENV/bin/python" ]]; then
    python3 -m venv --system-site-packages "$VENV"
fi
# The project and its PyPI dependencies (numpy, opencv-python-headless, flask, pillow). The [pi] extra
# is NOT asked for: picamera2 is already there from apt, and pip's picamera2 would try to build
# libcamera pieces that only Debian's package has.
"$VENV/bin/pip" install --quiet --upgrade pip
# The exact versions the tests passed with (requirements.lock), then the program on top of them.
"$VENV/bin/pip" install --quiet -r "$SRC/requirements.lock"
"$VENV/bin/pip" install --quiet --upgrade --upgrade-strategy only-if-needed "$SRC"
# opencv-python-headless 5 needs numpy 2, but Debian's simplejpeg (used by picamera2) is built for
# numpy 1 and fails to import next to numpy 2 ("numpy.dtype size changed"). A simplejpeg wheel from PyPI,
# built for numpy 2, inside the venv shadows Debian's.
if ! "$VENV/bin/python" -c 'import simplejpeg' >/dev/null 2>&1; then
    "$VENV/bin/pip" install --quiet --upgrade simplejpeg
fi
if "$VENV/bin/python" -c 'from picamera2 import Picamera2' >/dev/null 2>&1; then
    echo "picamera2 imports fine in the venv"
else
    warn "picamera2 does not import in $VENV; a USB webcam (--camera opencv:0) still works. Details:"
    "$VENV/bin/python" -c 'from picamera2 import Picamera2' 2>&1 | tail -n 1 >&2 || true
fi

# --- 4. camera settings and boot configuration -------------------------------------------------------
say "Camera settings in $ETC_DIR"
install -d -m 0755 "$ETC_DIR"
# The shipped defaults go to /etc; calibration writes its locked copy to the data directory, which wins.
# An edited /etc copy is kept: the new one is put beside it for comparison.
if [[ ! -f "$ETC_DIR/camera.toml" ]]; then
    install -m 0644 "$HERE/camera.toml" "$ETC_DIR/camera.toml"
elif ! cmp -s "$HERE/camera.toml" "$ETC_DIR/camera.toml"; then
    install -m 0644 "$HERE/camera.toml" "$ETC_DIR/camera.toml.new"
    warn "$ETC_DIR/camera.toml was edited; the shipped version is in camera.toml.new"
fi

# The firmware must detect the ribbon camera (Bookworm's default; see config.txt.notes).
BOOT_CONFIG=/boot/firmware/config.txt
[[ -f "$BOOT_CONFIG" ]] || BOOT_CONFIG=/boot/config.txt
if [[ -f "$BOOT_CONFIG" ]]; then
    if grep -q '^camera_auto_detect=0' "$BOOT_CONFIG"; then
        warn "$BOOT_CONFIG has camera_auto_detect=0: keeping it (someone chose it); see config.txt.notes"
    elif ! grep -q '^camera_auto_detect=1' "$BOOT_CONFIG"; then
        printf '\n# Saint Malo companion: detect the ribbon camera at boot\ncamera_auto_detect=1\n' >>"$BOOT_CONFIG"
        warn "added camera_auto_detect=1 to $BOOT_CONFIG: reboot once for the camera to appear"
    fi
else
    warn "no config.txt found (not a Raspberry Pi?); skipping the camera boot setting"
fi

# --- 5. network name -------------------------------------------------------------------------------
if [[ -n "$WANTED_HOSTNAME" && "$(hostname)" != "$WANTED_HOSTNAME" ]]; then
    say "Naming this Pi $WANTED_HOSTNAME (http://$WANTED_HOSTNAME.local/)"
    old_hostname=$(hostname)
    hostnamectl set-hostname "$WANTED_HOSTNAME"
    # Debian maps the own name to 127.0.1.1; without it sudo complains it cannot resolve the host.
    if grep -q '^127\.0\.1\.1' /etc/hosts; then
        sed -i "s/^127\.0\.1\.1.*/127.0.1.1\t$WANTED_HOSTNAME/" /etc/hosts
    else
        printf '127.0.1.1\t%s\n' "$WANTED_HOSTNAME" >>/etc/hosts
    fi
    echo "renamed from $old_hostname"
fi
say "Advertising the dashboard with avahi (mDNS)"
install -d -m 0755 /etc/avahi/services
# The service file's port follows COMPANION_PORT.
sed "s#<port>80</port>#<port>$PORT</port>#" "$HERE/$APP.avahi.service" >"/etc/avahi/services/$APP.service"
chmod 0644 "/etc/avahi/services/$APP.service"
systemctl enable --quiet avahi-daemon
# A restart publishes a new host name at once.
systemctl restart avahi-daemon

# --- 6. the hotspot helper ---------------------------------------------------------------------------
# For tables without Wi-Fi: `sudo saint-malo-hotspot on` (see hardware.md).
install -m 0755 "$HERE/hotspot.sh" /usr/local/sbin/saint-malo-hotspot

# --- 7. the service --------------------------------------------------------------------------------
say "Installing and starting the $APP service"
sed "s#--port 80#--port $PORT#" "$HERE/$APP.service" >"/etc/systemd/system/$APP.service"
chmod 0644 "/etc/systemd/system/$APP.service"
systemctl daemon-reload
# enable: start at every boot; restart: an update takes effect now.
systemctl enable --quiet "$APP.service"
systemctl restart "$APP.service"

sleep 3
if systemctl is-active --quiet "$APP.service"; then
    state="running"
else
    state="NOT running: journalctl -u $APP -n 50"
fi
address="http://$(hostname).local"
[[ "$PORT" == "80" ]] || address="$address:$PORT"
# The table PIN: made by the service on its first start, kept in the data directory's store.
pin_command="sudo -u $APP_USER $VENV/bin/companion pin --data $DATA_DIR"
pin=""
for _ in 1 2 3 4 5; do
    pin=$(runuser -u "$APP_USER" -- "$VENV/bin/companion" pin --data "$DATA_DIR" 2>/dev/null) && break
    sleep 2
done
cat <<EOF

Done. The companion is $state.
  Dashboard:          $address/   (or http://$(hostname -I | awk '{print $1}'):$PORT/)
  Logs:               journalctl -u $APP -f
  Calibrate camera:   see hardware.md, "Calibration"
  Game data:          $DATA_DIR (kept across updates)
  Table PIN:          ${pin:-"(not made yet: the service makes it on its first start)"}
                      show it again: $pin_command
                      (also at the top of the log: journalctl -u $APP | grep "TABLE PIN")
EOF
