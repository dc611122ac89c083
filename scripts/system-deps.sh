#!/bin/sh
# Debian packages some tests need (chromium for the browser tests, pebble for the ACME tests, qemu-user and the arm64 loader for the arm64
# release binary), installed when missing (a fresh CI machine has none of them). Without root or
# apt-get, or without the package mirror, it says so and the tests that need them skip with a message.
need=""
[ -x /usr/bin/chromium ] || need="$need chromium"
[ -x /usr/bin/pebble ] || need="$need pebble"
command -v qemu-aarch64-static >/dev/null 2>&1 || need="$need qemu-user-static"
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || need="$need libc6-arm64-cross"
[ -z "$need" ] && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "system-deps: installing$need"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need) >/dev/null 2>&1 ||
    echo "system-deps: could not install$need; the tests that need them will skip" >&2
else
  echo "system-deps: missing$need (needs root and apt-get); the tests that need them will skip" >&2
fi
exit 0
