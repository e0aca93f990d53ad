#!/usr/bin/env bash
# Reassemble the labcart ROMs.
#   bash src/labcart/build.sh           # rebuild and overwrite the committed .nes files
#   bash src/labcart/build.sh --check   # rebuild into a temp dir, fail if any differs
#   bash src/labcart/build.sh --out FILE [-- -D NAME=VALUE ...]
#                                         # build one variant with any contract (README "Contracts")
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

die() {
  echo "build.sh: $*" >&2
  exit 2
}

# One variant: ca65 with the given defines, then ld65. Assembler messages (the contract checks in
# defs.inc report there) go to stderr.
assemble() { # out, defines...
  local out="$1"
  shift
  if ! ca65 "$@" -I "$here" "$here/main.s" -o "$tmp/variant.o" 2>"$tmp/ca65.err"; then
    echo "build.sh: invalid contract or assembly error:" >&2
    grep -v "Note: Macro was defined here" "$tmp/ca65.err" | sed 's/^/  /' >&2
    exit 2
  fi
  ld65 -C "$here/labcart.cfg" "$tmp/variant.o" -o "$out"
}

# ---- one variant with any contract
if [[ "${1:-}" == "--out" ]]; then
  [[ $# -ge 2 ]] || die "--out needs a file name"
  out="$2"
  shift 2
  if [[ $# -gt 0 ]]; then
    [[ "$1" == "--" ]] || die "expected -- before the defines, got '$1'"
    shift
  fi
  known=" CODE_EMPTY CODE_COL1 CODE_NUIS CODE_BIG CODE_CARB ORI_DOWN ORI_LEFT ORI_UP ORI_RIGHT A_CW XY_CHILD COLOR_OFFSET SPAWN_ORI KICK_SIDE KICK_UP NEXT_LAG NEXT_TABLE MODE_LATE ITEMS_AT_BOOT ORI_STEP ORI_BASE X_BASE Y_BASE TIMER_RESOLVE0 POSE_LATE COLOR_BITS OTHER_BITS FALL_FRAMES FALL_STEP FALL_MIN FALL_FAST LEVEL_PIECES LOCK_DELAY LOCK_MOVES INPUT_LAG PAIR_SWAP NUIS_CAP NUIS_DROP NUIS_POINTS NUIS_OVERFLOW CODES_ALT ORIENT_ALT FIXED_SEED "
  defs=()
  seen=" "
  while [[ $# -gt 0 ]]; do
    if [[ "$1" == "-D" ]]; then
      [[ $# -ge 2 ]] || die "-D needs NAME=VALUE"
      def="$2"
      shift 2
    elif [[ "$1" == -D* ]]; then
      def="${1#-D}"
      shift
    else
      die "expected -D NAME=VALUE, got '$1'"
    fi
    [[ "$def" == *=* ]] || die "-D $def: expected NAME=VALUE"
    name="${def%%=*}"
    value="${def#*=}"
    [[ "$known" == *" $name "* ]] || die "-D $def: unknown name '$name' (known:$known)"
    [[ "$seen" != *" $name "* ]] || die "-D $def: $name is given twice"
    seen+="$name "
    if [[ "$name" == SPAWN_ORI ]]; then
      # a direction name: where the child is, seen from the pivot, when a pair spawns
      case "${value,,}" in
        down) defs+=(-D SPAWN_DIR=0) ;;
        left) defs+=(-D SPAWN_DIR=1) ;;
        up) defs+=(-D SPAWN_DIR=2) ;;
        right) defs+=(-D SPAWN_DIR=3) ;;
        *) die "-D $def: SPAWN_ORI must be a direction name: down, left, up or right" ;;
      esac
      continue
    fi
    if [[ "$value" =~ ^[0-9]+$ ]]; then
      n=$((10#$value))
    elif [[ "$value" =~ ^(\$|0x|0X)([0-9A-Fa-f]+)$ ]]; then
      n=$((16#${BASH_REMATCH[2]}))
    else
      die "-D $def: $name needs a number (decimal, \$hex or 0xhex), got '$value'"
    fi
    defs+=(-D "$name=$n")
  done
  assemble "$out" "${defs[@]}"
  echo "built $out"
  exit 0
fi

# ---- the committed variants
check=0
if [[ "${1:-}" == "--check" ]]; then check=1; fi

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
  assemble "$tmp/$name.nes" $defs
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
