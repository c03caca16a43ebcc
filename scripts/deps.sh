#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages feedrate builds and tests with, when
# run as root on a machine that lacks them; otherwise prints the command.
#   scripts/deps.sh          build + test dependencies
#   scripts/deps.sh --bench  also the benchmark peers (fio, PyTorch)
set -eu
pkgs=(build-essential pkg-config liburing-dev libjpeg62-turbo-dev libzstd-dev
      libjansson-dev libcriterion-dev libseccomp-dev libcap-dev
      bindfs e2fsprogs)
if [ "${1:-}" = "--bench" ]; then
	pkgs+=(fio jq python3-torch python3-torchvision)
fi

# Ubuntu names libjpeg-turbo's package libjpeg-turbo8-dev.
if grep -qi '^ID=ubuntu' /etc/os-release 2>/dev/null; then
	pkgs=("${pkgs[@]/libjpeg62-turbo-dev/libjpeg-turbo8-dev}")
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages: ${missing[*]}"
	echo "deps: run as root:  apt-get update && $cmd"
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd
