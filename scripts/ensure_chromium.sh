#!/usr/bin/env bash
# Make sure the slide test has a browser (Debian's chromium) and npm.
# Exit 0: ready.  Exit 3: cannot be installed here (not root, or no apt-get, or the
# install failed) - a clear message is printed and `make test-slides` skips.
set -u

have_browser() {
    command -v chromium || command -v chromium-browser || command -v google-chrome || command -v chrome
}

apt_install() {   # apt_install PACKAGE...
    if [ "$(id -u)" != 0 ]; then
        echo "ensure_chromium: need $* but not running as root, so cannot apt-get install it."
        return 3
    fi
    if ! command -v apt-get >/dev/null; then
        echo "ensure_chromium: need $* but there is no apt-get on this machine."
        return 3
    fi
    echo "ensure_chromium: installing $* with apt-get (takes a few minutes, once) ..."
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"; } >/dev/null; then
        echo "ensure_chromium: apt-get install $* failed (no network or no such package)."
        return 3
    fi
}

if ! have_browser >/dev/null; then
    apt_install chromium || exit 3
    have_browser >/dev/null || { echo "ensure_chromium: chromium still not found after install."; exit 3; }
fi
if ! command -v npm >/dev/null; then
    apt_install npm || exit 3
fi
# (no --version calls: they cost a second at every make test-slides; check_slides.py prints
# the version of the browser it launched)
echo "ensure_chromium: browser $(have_browser), npm $(command -v npm)"
