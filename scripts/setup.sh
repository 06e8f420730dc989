#!/usr/bin/env bash
# Installs what redcrawl needs (Debian packages) and builds it with meson/ninja:
#   build/       optimised binaries (the demo, benchmarks, daily use)
#   build-asan/  the same with AddressSanitizer + UBSan (what the tests run)
# Idempotent: packages already there are not reinstalled; builds are incremental.
#   scripts/setup.sh            both builds
#   scripts/setup.sh --release  only build/
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PACKAGES=(
  meson ninja-build pkg-config gcc python3 python3-venv
  libhiredis-dev libcurl4-openssl-dev libev-dev libgumbo-dev libpcre2-dev libjansson-dev
  libmongoc-dev libbson-dev librdkafka-dev libxml2-dev libpsl-dev liburiparser-dev
  libxxhash-dev libuchardet-dev libidn2-dev zlib1g-dev libbrotli-dev libzstd-dev libssl-dev
  libmicrohttpd-dev # the metrics endpoint (shared/metrics_http.c)
  redis-server redis-tools kcat
  python3-venv # tests/integration/test_metrics.py: prometheus_client's parser from PyPI in a venv
  iproute2     # ss, ip netns (tests)
  nginx-light # the HTTPS test's server (HTTP/2, gzip, a test CA)
  cppcheck    # the static analysis the tests run (scripts/analyse.sh)
  clang-format # the format check the tests run (scripts/format.sh)
  chromium chromium-driver # tests/integration/test_dashboard.py: the dashboard in headless Chromium
  docker-compose # validates deploy/docker-compose.yml in the tests (no engine needed)
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# warcio (PyPI), the WARC reader the WARC tests check the files with, in its own venv.
venv="$HOME/.cache/redcrawl/warcio-venv"
if [ ! -x "$venv/bin/warcio" ]; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q warcio || echo "setup: warcio not installed (the WARC tests install it)" >&2
fi

build() { # dir, meson options...
  local dir=$1
  shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >/dev/null
  else
    meson configure "$dir" "$@" >/dev/null # options added since the dir was made
  fi
  # Quiet when it builds; the compiler's output in full when it does not.
  if ! ninja -C "$dir" >"$dir/ninja.log" 2>&1; then
    cat "$dir/ninja.log" >&2
    echo "setup: building $dir/ failed (output above)" >&2
    exit 1
  fi
  echo "setup: built $dir/" >&2
}

build build --buildtype=release
if [ "${1:-}" != "--release" ]; then
  build build-asan --buildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false -Dwerror=true
fi
