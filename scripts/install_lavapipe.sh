#!/usr/bin/env bash
# Installs Mesa's CPU Vulkan driver (lavapipe) and the Vulkan loader.
#
# Lavapipe lets the `vulkan` backend run on machines without a GPU (slowly:
# it is for correctness tests). The script does nothing when the lavapipe ICD
# and the loader are already present. Installing needs root and apt-get.
#
# Exit status: 0 when lavapipe is present (already, or after installing);
# 1 when it is missing and cannot be installed here (not root, no apt-get);
# 2 when apt-get failed or the install did not provide it.
set -euo pipefail

icd_dirs=(/usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/share/vulkan/icd.d)

# Prints the first lavapipe ICD manifest found, or nothing.
find_icd() {
  local dir
  for dir in "${icd_dirs[@]}"; do
    compgen -G "${dir}/lvp_icd*.json" | head -n 1 && return 0
  done
  return 0
}

has_loader() {
  ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '
}

icd="$(find_icd)"
if [[ -n "${icd}" ]] && has_loader; then
  echo "lavapipe already present: ${icd}"
  exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
  echo "lavapipe missing and not running as root: cannot install" \
    "mesa-vulkan-drivers libvulkan1" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "lavapipe missing and apt-get not found: install Mesa's Vulkan" \
    "drivers and the Vulkan loader with this system's package manager" >&2
  exit 1
fi

echo "installing mesa-vulkan-drivers libvulkan1 with apt-get"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -q || ! apt-get install -y -q mesa-vulkan-drivers libvulkan1; then
  echo "apt-get failed to install mesa-vulkan-drivers libvulkan1" >&2
  exit 2
fi

icd="$(find_icd)"
if [[ -z "${icd}" ]] || ! has_loader; then
  echo "installed mesa-vulkan-drivers libvulkan1 but found no lavapipe ICD" \
    "in ${icd_dirs[*]} or no libvulkan.so.1" >&2
  exit 2
fi
echo "installed lavapipe: ${icd}"
