#!/usr/bin/env bash
# Restores the file before and after each fix in Corpus/lint-fixes/cases.tsv from fetched git mirrors.
# Usage: Corpus/lint-fixes/restore.sh <mirrors-folder> <target-folder>
#   <mirrors-folder> holds one git mirror per repository, named OWNER+NAME (the layout of the `fetch` tool: a bare
#   repository at OWNER+NAME/repo, or OWNER+NAME itself). Writes <target-folder>/<case-id>/before/<file> (the parent
#   commit's version) and <target-folder>/<case-id>/after/<file> (the fix commit's version). Cases whose repository
#   is missing are listed on stderr and skipped. Nothing restored here goes into git.
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 <mirrors-folder> <target-folder>" >&2
    exit 2
fi
mirrors="$1"
target="$2"
cases="$(dirname "$0")/cases.tsv"
mkdir -p "$target"
restored=0
missing=0
while IFS=$'\t' read -r id repository fix parent path path_before _; do
    [ "$id" = "id" ] && continue
    name="${repository/\//+}"
    git_dir="$mirrors/$name/repo"
    [ -d "$git_dir" ] || git_dir="$mirrors/$name"
    if ! git -C "$git_dir" cat-file -e "$fix^{commit}" 2>/dev/null; then
        echo "restore: $id: no mirror of $repository with $fix under $mirrors" >&2
        missing=$((missing + 1))
        continue
    fi
    if [ "$(git -C "$git_dir" cat-file -t "$parent:$path_before" 2>/dev/null)" != "blob" ] ||
        [ "$(git -C "$git_dir" cat-file -t "$fix:$path" 2>/dev/null)" != "blob" ]; then
        echo "restore: $id: $path is not a file in $repository at $parent and $fix" >&2
        missing=$((missing + 1))
        continue
    fi
    mkdir -p "$target/$id/before" "$target/$id/after"
    git -C "$git_dir" show "$parent:$path_before" > "$target/$id/before/$(basename "$path_before")"
    git -C "$git_dir" show "$fix:$path" > "$target/$id/after/$(basename "$path")"
    restored=$((restored + 1))
done < "$cases"
echo "restore: $restored cases restored into $target, $missing missing" >&2
