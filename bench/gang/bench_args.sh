# shellcheck shell=bash
# Sourced by the bench/gang scripts: checks a numeric option. Exits 2 naming
# the option, the value and the range when the value is not a number in it.
# $bench (the script's name) prefixes the message.
# shellcheck disable=SC2154  # bench: set by the script that sources this one
number() {  # number NAME VALUE MIN MAX
  if ! awk -v v="$2" -v lo="$3" -v hi="$4" \
      'BEGIN { exit !(v ~ /^[0-9]+([.][0-9]+)?$/ && v + 0 >= lo && v + 0 <= hi) }'; then
    echo "$bench: $1 '$2' is not a number in [$3, $4]" >&2
    exit 2
  fi
}
