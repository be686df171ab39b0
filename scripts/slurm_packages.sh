# shellcheck shell=bash
# What the scripts that run a real Slurm (slurm-test.sh, cluster-up.sh) share:
# the Debian packages they need, and the build they use.

# Installs those of the given Debian packages that are missing (as root).
install_missing_packages() {
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [[ ${#missing[@]} -gt 0 ]] || return 0
  echo "$(basename "$0"): installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The absolute path of BUILD_DIR, or of build/ after scripts/setup.sh built it
# when BUILD_DIR is empty. Run from the repository's root.
built_tree() {
  if [[ -z "$1" ]]; then
    scripts/setup.sh >/dev/null
    (cd build && pwd)
  else
    (cd "$1" && pwd)
  fi
}
