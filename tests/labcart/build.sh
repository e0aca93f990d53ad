#!/usr/bin/env bash
# Reassemble the labcart ROMs.
#   bash tests/labcart/build.sh           # rebuild and overwrite the committed .nes files
#   bash tests/labcart/build.sh --check   # rebuild into a temp dir, fail if any differs
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
check=0
if [[ "${1:-}" == "--check" ]]; then check=1; fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

variants=(
  "puyolab:"
  "puyolab-codes:-D CODES_ALT=1"
  "puyolab-orient:-D ORIENT_ALT=1"
  "puyolab-fixed:-D FIXED_SEED=1"
)
status=0
for v in "${variants[@]}"; do
  name="${v%%:*}"
  defs="${v#*:}"
  # shellcheck disable=SC2086
  ca65 $defs -I "$here" "$here/main.s" -o "$tmp/$name.o"
  ld65 -C "$here/labcart.cfg" "$tmp/$name.o" -o "$tmp/$name.nes"
  if [[ $check -eq 1 ]]; then
    if ! cmp -s "$tmp/$name.nes" "$here/$name.nes"; then
      echo "MISMATCH: $name.nes differs from a fresh build" >&2
      status=1
    else
      echo "ok: $name.nes"
    fi
  else
    cp "$tmp/$name.nes" "$here/$name.nes"
    echo "built $name.nes"
  fi
done
exit $status
