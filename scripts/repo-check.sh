#!/usr/bin/env bash
# Fails when the repository tracks build output: a file over 1 MB, or a
# compiled test binary. The repository holds source; binaries are built.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=$((1024 * 1024))
bad=0
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue
	size=$(stat -c %s "$f")
	if [ "$size" -gt "$limit" ]; then
		printf 'tracked file over 1 MB: %s (%d bytes): build output belongs in bin/ or .cache/, never in git\n' "$f" "$size" >&2
		bad=1
	fi
	case "$f" in *.test) printf 'tracked compiled test binary: %s\n' "$f" >&2; bad=1 ;; esac
done < <(git ls-files -z)
[ "$bad" -eq 0 ] && echo "repository: no tracked file over 1 MB, no test binaries"
exit "$bad"
