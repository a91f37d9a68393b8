#!/bin/sh
# Install Debian's headless Chromium and its driver for the browser test, only when
# chromium is missing and apt-get can run (as root); otherwise the test skips, saying why.
command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 && exit 0
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver \
        || echo "ensure_chromium: could not install chromium; the browser test will skip"
else
    echo "ensure_chromium: no chromium and no apt-get as root; the browser test will skip"
fi
exit 0
