#!/usr/bin/env bash
# Checks that two polyvol binaries give byte-identical JSON: predict and
# explore of every embedded example on four devices with both methods, and
# predict with every performance model (standard output and error apart:
# their interleaving is not deterministic). For refactorings that must not
# change behaviour:
#   git worktree add /tmp/old HEAD~1 && (cd /tmp/old && go build -o /tmp/pv-old .)
#   go build -o /tmp/pv-new . && scripts/json-identity.sh /tmp/pv-old /tmp/pv-new
set -euo pipefail
old=$1 new=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The embedded examples are the YAML files of examples/.
examples=$(cd "$(dirname "$0")/../examples" && ls -- *.yaml | sed 's/\.yaml$//')
if [ -z "$examples" ]; then
	echo "json-identity: no examples found in examples/" >&2
	exit 2
fi
for bin in old new; do
	b=${!bin}
	mkdir -p "$out/$bin"
	for ex in $examples; do
		for dev in A100-40GB H100-SXM V100 MI100; do
			for m in exact reference; do
				"$b" predict "$ex" --device "$dev" --method "$m" --format json >"$out/$bin/p-$ex-$dev-$m.json" 2>"$out/$bin/p-$ex-$dev-$m.err" || true
				"$b" explore "$ex" --device "$dev" --method "$m" --format json >"$out/$bin/e-$ex-$dev-$m.json" 2>/dev/null || true
			done
			for mo in roofline latency su2015 overlap; do
				"$b" predict "$ex" --device "$dev" --model "$mo" --format json >"$out/$bin/m-$ex-$dev-$mo.json" 2>"$out/$bin/m-$ex-$dev-$mo.err" || true
			done
		done
	done
done
n=$(find "$out/new" -type f | wc -l)
if [ "$n" -eq 0 ]; then
	echo "json-identity: no outputs" >&2
	exit 2
fi
if diff -r "$out/old" "$out/new" >"$out/diff"; then
	echo "identical: $n outputs"
else
	head -40 "$out/diff"
	echo "differ: see above ($(grep -c '^diff' "$out/diff") of $n files)"
	exit 1
fi
