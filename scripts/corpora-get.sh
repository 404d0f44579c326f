#!/usr/bin/env bash
# Brings the real corpora of docs/corpora.md onto this machine: one sparse
# clone per corpus of docs/corpora/corpora.tsv, at the judged commit, under
# DIR/NAME. Safe to run again: a clone already at its commit is left alone.
#
#   scripts/corpora-get.sh /tmp/corpora            # every corpus
#   scripts/corpora-get.sh /tmp/corpora lago auth  # some
#   CORPORA_MIRROR=/srv/mirror scripts/corpora-get.sh /tmp/corpora
#       # clone from local bare mirrors at $CORPORA_MIRROR/OWNER+NAME/repo
#
# Then: go run ./bench/corpora -root /tmp/corpora
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:?usage: scripts/corpora-get.sh DIR [NAME ...]}
shift
mkdir -p "$dir"
while IFS=$'\t' read -r name url commit opts; do
  case "$name" in ''|'#'*) continue ;; esac
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  dest=$dir/$name
  if [ -d "$dest/.git" ] && [ "$(git -C "$dest" rev-parse HEAD 2>/dev/null)" = "$commit" ]; then
    echo "$name: at ${commit:0:12}"
    continue
  fi
  src=$url
  if [ -n "${CORPORA_MIRROR:-}" ]; then
    slug=${url#https://github.com/}
    src=$CORPORA_MIRROR/${slug/\//+}/repo
  fi
  sub=$(printf '%s\n' "$opts" | tr ',' '\n' | sed -n 's/^sub=//p')
  rm -rf "$dest"
  # A blobless clone fetches only the blobs of the tree checked out; a
  # local mirror may not offer the filter, so fall back to a plain clone.
  git clone --quiet --no-checkout --filter=blob:none "$src" "$dest" 2>/dev/null ||
    { rm -rf "$dest"; git clone --quiet --no-checkout "$src" "$dest"; }
  if [ -n "$sub" ]; then
    git -C "$dest" sparse-checkout set --no-cone "/$sub"
  fi
  git -C "$dest" -c advice.detachedHead=false checkout --quiet "$commit"
  echo "$name: cloned ${commit:0:12} from $src${sub:+ ($sub)}"
done < docs/corpora/corpora.tsv
