#!/usr/bin/env bash
# Commit subjects of at most 72 characters (CONTRIBUTING.md), for every commit since the rule
# was adopted: 050f010 (2026-11-25). Older history keeps its longer subjects (landed history is
# never rewritten). In a shallow clone without that commit, the commits dated after it are
# checked. Run by the test suite (meson test "commits").
#   scripts/checkcommits.sh [BASE]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BASE=${1:-050f010}
BASE_DATE=2026-11-25T05:50:58Z # BASE's commit time, plus a second
MAX=72

if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "checkcommits: not a git checkout, no history to check" >&2
  exit 77 # meson: skipped (a source tarball), never the case in CI's clone
fi
if git cat-file -e "$BASE^{commit}" 2>/dev/null; then
  range=("$BASE..HEAD")
else
  range=(--since="$BASE_DATE" HEAD)
fi
bad=$(git log --format='%h %s' "${range[@]}" | awk -v max=$MAX '{ s = $0; sub(/^[^ ]+ /, "", s) } length(s) > max { printf "%s (%d characters)\n", $0, length(s) }')
n=$(git log --oneline "${range[@]}" | wc -l)
if [ -n "$bad" ]; then
  echo "checkcommits: commit subjects over $MAX characters (shorten with git commit --amend or rebase -i):" >&2
  echo "$bad" >&2
  exit 1
fi
echo "checkcommits: $n commits since $BASE, every subject within $MAX characters"
