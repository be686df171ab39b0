# shellcheck shell=bash
# Sourced by the bench/gang scripts: checks their options. Each check exits 2
# naming the option and the value, and what it should have been; $bench (the
# script's name) prefixes the message.
# shellcheck disable=SC2154  # bench: set by the script that sources this one
number() {  # number NAME VALUE MIN MAX
  if ! awk -v v="$2" -v lo="$3" -v hi="$4" \
      'BEGIN { exit !(v ~ /^[0-9]+([.][0-9]+)?$/ && v + 0 >= lo && v + 0 <= hi) }'; then
    echo "$bench: $1 '$2' is not a number in [$3, $4]" >&2
    exit 2
  fi
}

# A profile fakejob knows (bench/data/models/NAME.model), or exit 2 naming it.
models_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../data/models" && pwd)
model() {  # model OPTION NAME
  [[ $2 =~ ^[a-z0-9_]+$ && -f $models_dir/$2.model ]] || {
    echo "$bench: $1 '$2' is not a profile of bench/data/models" \
      "($(cd "$models_dir" && ls -- *.model | sed 's/[.]model$//' | paste -sd' '))" >&2
    exit 2
  }
}
