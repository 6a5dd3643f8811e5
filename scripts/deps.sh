#!/usr/bin/env bash
# Installs the Debian 12 packages the SDK builds and tests with, if missing.
# Extra package names given as arguments are installed too (CI adds clang).
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config tzdata libabsl-dev libprotobuf-dev
          protobuf-compiler libfmt-dev catch2 libbenchmark-dev libyaml-cpp-dev
          "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "Installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
