#!/usr/bin/env bash
# Restores the migration corpus (Corpus/migrate/corpus.tsv: repository, commit, path) from fetched mirrors into a
# folder, one subfolder per repository (owner+name/path). The files are public RxSwift code and never go into git.
# Usage: Corpus/migrate/restore.sh <mirrors-folder> <target-folder>
#   <mirrors-folder> holds one git directory per repository at <owner>+<name>/repo (what the fetch tool makes).
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 <mirrors-folder> <target-folder>" >&2
    exit 2
fi
mirrors="$1"
target="$2"
list="$(dirname "$0")/corpus.tsv"
restored=0
missing=0
while IFS=$'\t' read -r repository commit path _; do
    case "$repository" in "#"* | "") continue ;; esac
    git_dir="$mirrors/${repository/\//+}/repo"
    destination="$target/${repository/\//+}/$path"
    mkdir -p "$(dirname "$destination")"
    if git --git-dir "$git_dir" show "$commit:$path" >"$destination" 2>/dev/null; then
        restored=$((restored + 1))
    else
        rm -f "$destination"
        echo "missing: $repository $commit $path" >&2
        missing=$((missing + 1))
    fi
done <"$list"
echo "restored $restored files into $target ($missing missing)"
[ "$missing" -eq 0 ]
