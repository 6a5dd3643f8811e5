#!/usr/bin/env bash
# Checks that every citation of a docs section points at a section that
# exists, and that nothing points outside the repository for its docs.
#
# Usage: scripts/check_doc_refs.sh [ROOT]   (ROOT defaults to the repository
# that holds this script). Registered with ctest as docs/citations.
#
# Files scanned: in a git checkout whose top level is ROOT, the tracked files
# (git ls-files); otherwise every file under ROOT except .git, build*/ and
# _install/. Binary files and this script are skipped.
#
# What counts as a citation:
#   * `docs/<name>.md §<num>`, where <num> is digits with optional `.digits`
#     parts (`§4`, `§2.13`). A section number must equal the number of a
#     heading of docs/<name>.md: the first word after the leading `#`s, a
#     trailing dot ignored (`## 5. Eviction queue` is §5, `### 2.13 Command
#     execution` is §2.13).
#   * Every further `§<num>` is attributed to the docs file named last
#     before it: first on the same line, then on the lines above it in the
#     same file. So `docs/semantics.md §4.1, §4.2 and §7.2`, a range
#     `§2.2-§2.4` and a comment that names docs/semantics.md in its first
#     line and writes `(§2.6)` further down are all checked against
#     docs/semantics.md. Name the file before the sections it applies to.
#   * In docs/<name>.md itself a `§<num>` refers to docs/<name>.md unless
#     another docs file was named earlier on the same line.
#   * A `§<num>` with no docs file named before it in its file is an error:
#     a reader cannot tell which document it means.
#   * Naming a docs/<name>.md that does not exist is an error.
# Also an error anywhere (docs included): a mention of the files outside the
# repository the docs used to live in (the shared folder one level up, its
# upper-case design file and its reference/ folder; see `old_locations`).
# The patterns are spelled so that this script does not match them itself.
#
# Output: one line per problem, `file:line: ...`, e.g.
#   include/x.h:12: cites docs/semantics.md §2.99, which has no such section
# then exit 1; or a summary ("N citations of M sections checked") and exit 0.
# Exit 2 on bad usage.
set -euo pipefail
export LC_ALL=C

if [ $# -gt 1 ]; then
  echo "usage: $0 [ROOT]" >&2
  exit 2
fi
root=${1:-"$(dirname "$0")/.."}
if ! cd "$root" 2>/dev/null; then
  echo "$0: cannot enter $root" >&2
  exit 2
fi
root=$(pwd -P)
self=scripts/check_doc_refs.sh

# The files to scan, NUL-separated, relative to the root.
list_files() {
  if command -v git >/dev/null 2>&1 &&
     top=$(git rev-parse --show-toplevel 2>/dev/null) &&
     [ "$(cd "$top" && pwd -P)" = "$root" ]; then
    git ls-files -z
  else
    find . \( -name .git -o -name '_install' -o \( -type d -name 'build*' \) \) \
      -prune -o -type f -print0 | sed -z 's|^\./||'
  fi
}

files=()
while IFS= read -r -d '' f; do
  [ "$f" = "$self" ] && continue
  [ -f "$f" ] || continue  # Tracked but deleted in the work tree.
  files+=("$f")
done < <(list_files)

# The docs and their section numbers: "F<TAB>docs/x.md" per file and
# "S<TAB>docs/x.md<TAB>num" per numbered heading (outside code fences).
table=$(mktemp)
trap 'rm -f "$table"' EXIT
for doc in docs/*.md; do
  [ -f "$doc" ] || continue
  printf 'F\t%s\n' "$doc" >>"$table"
  awk -v doc="$doc" '
    /^```/ { fence = !fence; next }
    !fence && /^#+[ \t]/ {
      n = $2
      sub(/\.$/, "", n)
      if (n ~ /^[0-9]+(\.[0-9]+)*$/) printf "S\t%s\t%s\n", doc, n
    }' "$doc" >>"$table"
done

status=0

# Mentions of the old locations.
old_locations='[.][.]/shared|DESIGN[.]md|karpenter[-]semantics[.]md|reference[/]scheduling[.]md'
if [ ${#files[@]} -gt 0 ]; then
  old=$(grep -nIH -E "$old_locations" -- "${files[@]}" || true)
  if [ -n "$old" ]; then
    while IFS= read -r hit; do
      what=$(grep -oE "$old_locations" <<<"${hit#*:*:}" | head -n 1)
      echo "${hit%%:*}:$(cut -d: -f2 <<<"$hit"): mentions $what, which is not in the repository (cite docs/design.md or docs/semantics.md)"
    done <<<"$old"
    status=1
  fi
fi

# Citations. grep prints each file's matching lines in order, so the awk
# program sees "file:line:text" grouped by file.
report=$(
  { [ ${#files[@]} -eq 0 ] ||
      grep -nIH -E '§|docs/[A-Za-z0-9_.-]+\.md' -- "${files[@]}" || true; } |
  awk -v table="$table" '
    BEGIN {
      while ((getline row < table) > 0) {
        split(row, f, "\t")
        if (f[1] == "F") exists[f[2]] = 1
        else sections[f[2] SUBSEP f[3]] = 1
      }
      bad = 0; checked = 0; distinct = 0
      namere = "(^|[^A-Za-z0-9_./-])docs/[A-Za-z0-9_.-]+[.]md"
      secre = "§[0-9]+([.][0-9]+)*"
    }
    {
      i = index($0, ":"); file = substr($0, 1, i - 1); rest = substr($0, i + 1)
      j = index(rest, ":"); line = substr(rest, 1, j - 1); s = substr(rest, j + 1)
      if (file != current) { current = file; context = "" }
      self_doc = (file ~ /^docs\/[^\/]+[.]md$/)
      if (self_doc) context = file
      while (1) {
        a = match(s, namere); as = RSTART; al = RLENGTH
        b = match(s, secre); bs = RSTART; bl = RLENGTH
        if (!a && !b) break
        if (a && (!b || as < bs)) {
          name = substr(s, as, al)
          sub(/^[^d]*/, "", name)  # Drop the boundary character.
          context = name
          if (!(name in exists)) {
            printf "%s:%s: names %s, which does not exist\n", file, line, name
            bad++
          }
          s = substr(s, as + al)
          continue
        }
        num = substr(s, bs + 2, bl - 2)  # "§" is two bytes in UTF-8.
        s = substr(s, bs + bl)
        if (context == "") {
          printf "%s:%s: cites §%s without naming a docs file before it (write docs/<name>.md §%s)\n", file, line, num, num
          bad++
          continue
        }
        checked++
        if (!((context SUBSEP num) in seen)) { seen[context SUBSEP num] = 1; distinct++ }
        if (!(context in exists)) continue  # Reported where it was named.
        if (!((context SUBSEP num) in sections)) {
          printf "%s:%s: cites %s §%s, which has no such section\n", file, line, context, num
          bad++
        }
      }
    }
    END {
      printf "SUMMARY %d %d %d\n", bad, checked, distinct
    }'
)
summary=$(tail -n 1 <<<"$report")
problems=$(sed '$d' <<<"$report")
read -r _ bad checked distinct <<<"$summary"
if [ -n "$problems" ]; then
  echo "$problems"
fi
if [ "$bad" -ne 0 ] || [ "$status" -ne 0 ]; then
  exit 1
fi
echo "docs citations OK: $checked citations of $distinct sections checked in ${#files[@]} files"
