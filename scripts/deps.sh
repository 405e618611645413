#!/usr/bin/env bash
# Installs the Debian packages polyvol needs, if any are missing:
#   scripts/deps.sh run    libisl for the cgo isl package, and clang-19 and
#                          llvm-19 (its llc and opt), which compile kernels
#                          for the instruction mix and read their loops'
#                          trip counts (package compiled)
#   scripts/deps.sh test   also make, g++ (the syntax check of the generated
#                          CUDA), the offline Bazel 4.2 pieces, and Chromium
#                          and Python 3 for the tests of polyvol serve (its
#                          browser test and the Python client example), and
#                          pytest and venv for the Python package (python/)
# As root it installs with apt-get; otherwise with sudo when available,
# else it prints the command to run and fails.
set -euo pipefail

packages=(libisl-dev clang-19 llvm-19)
if [[ "${1:-run}" == test ]]; then
	packages+=(make g++ bazel-bootstrap bazel-skylib bazel-rules-java chromium python3 python3-pytest python3-venv)
fi
missing=()
for p in "${packages[@]}"; do
	if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
		missing+=("$p")
	fi
done
((${#missing[@]} == 0)) && exit 0

sudo=()
if ((EUID != 0)); then
	if command -v sudo >/dev/null 2>&1; then
		sudo=(sudo)
	else
		echo "polyvol needs: ${missing[*]}; run: apt-get install ${missing[*]}" >&2
		exit 1
	fi
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q "${missing[@]}" </dev/null
