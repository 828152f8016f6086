#!/usr/bin/env bash
# scripts/tf-standins.sh MODULE TEMPLATE OUT_DIR: prepare a build of
# Terraform 1.8 or OpenTofu 1.12 without the state backends that need a
# cloud SDK. In those releases the remote-state backends are packages of
# the CLI's own module (Terraform 1.16 has them as modules of their own,
# which tools/terraform-1.16/go.mod replaces with stand-ins), and the go
# command refuses overlays of files in the module cache, so this copies the
# module's source from the module cache (verified by the go.sum of the
# tools/ module it runs in) into OUT_DIR/src, and puts a stand-in in the
# place of each of the azurerm, consul, cos, gcs, kubernetes, oss, pg and
# s3 backends: TEMPLATE (tools/<cli>/standin/backend.go) with its package
# clause and backend name rewritten, whose backend refuses to be
# configured with a message. The http, inmem, local, remote and cloud
# backends stay as they are. It writes OUT_DIR/go.mod (the tools/ module's
# go.mod, replacing MODULE with OUT_DIR/src) and OUT_DIR/go.sum, for
# `go build -modfile=OUT_DIR/go.mod`, and prints that path. Nothing in the
# module cache is changed.
set -euo pipefail
[ $# = 3 ] || { echo "usage: $0 MODULE TEMPLATE OUT_DIR (run in the tools/ module that pins MODULE)" >&2; exit 2; }
module=$1 template=$2 out=$3
[ -f "$template" ] && [ -f go.mod ] && [ -f go.sum ] || { echo "$0: run in a tools/ module with $template, go.mod and go.sum" >&2; exit 1; }

json=$(go mod download -json "$module") || { echo "$json" >&2; exit 1; }
dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")
[ -n "$dir" ] && [ -d "$dir/internal/backend/remote-state" ] || { echo "$0: no remote-state backends in $module: $json" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out"
out=$(cd "$out" && pwd)
cp -R "$dir" "$out/src.tmp"
chmod -R u+w "$out/src.tmp"
for pkg in azure consul cos gcs kubernetes oss pg s3; do
	name=$pkg
	[ "$pkg" = azure ] && name=azurerm
	dst="$out/src.tmp/internal/backend/remote-state/$pkg"
	grep -q "^package $pkg\$" "$dst/backend.go" 2>/dev/null || { echo "$0: $module has no backend package $pkg (internal/backend/remote-state/$pkg/backend.go)" >&2; exit 1; }
	rm -f "$dst"/*.go # the package's own files; its subpackages (OpenTofu's azure/auth, which a key provider imports) stay
	sed -e '/^\/\/go:build ignore$/d' \
		-e "s/^package standin\$/package $pkg/" \
		-e "s/^const name = \"NAME\"\$/const name = \"$name\"/" "$template" >"$dst/backend.go"
	grep -q "^package $pkg\$" "$dst/backend.go" && grep -q "^const name = \"$name\"\$" "$dst/backend.go" ||
		{ echo "$0: $template lacks 'package standin' or 'const name = \"NAME\"'" >&2; exit 1; }
done
mv "$out/src.tmp" "$out/src"
cp go.sum "$out/go.sum"
{ cat go.mod; printf '\n// Added by scripts/tf-standins.sh.\nreplace %s => %s\n' "$module" "$out/src"; } >"$out/go.mod"
echo "$out/go.mod"
