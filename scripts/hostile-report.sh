#!/usr/bin/env bash
# hostile-report.sh runs polyvol on hostile inputs, each in a fresh
# process, and prints one Markdown row per input: the command, the exit
# status, the wall time and the peak resident memory of the process tree
# (GNU time's maximum RSS, which covers the children it waited for), and
# the first line of standard error. The inputs are the committed corpus
# (testdata/hostile) and large ones generated into a scratch folder. It
# also checks the server: a hostile request is answered and the next one
# too, and a server whose parent is killed leaves no process behind.
#
# Usage: scripts/hostile-report.sh [POLYVOL_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$(mktemp -d)/polyvol
	go build -o "$bin" .
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
h=testdata/hostile

echo "| input | command | exit | seconds | peak MB | first line of stderr |"
echo "|---|---|---|---|---|---|"
row() { # row LABEL ARGS...
	local label=$1
	shift
	local start end code
	start=$(date +%s.%N)
	set +e
	/usr/bin/time -f '%M' -o "$tmp/rss" "$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	code=$?
	set -e
	end=$(date +%s.%N)
	local line
	line=$({ grep -v "^polyvol: note:" "$tmp/err" || true; } | head -n 1 | cut -c1-110 | sed "s/|/\\\\|/g")
	printf '| %s | `polyvol %s` | %d | %.2f | %d | %s |\n' "$label" "$(echo "$*" | sed "s|$tmp/||g" | cut -c1-70)" "$code" \
		"$(echo "$end - $start" | bc)" "$(($(tail -n 1 "$tmp/rss") / 1024))" "$line"
}

for f in spec-isl-comment-divide-by-zero spec-isl-continuation-divide-by-zero spec-isl-comment-power \
	spec-isl-continuation-power spec-isl-comment-existentials spec-isl-comment-params6000 spec-isl-parens60000 \
	spec-isl-pieces4096 spec-isl-nested-mods spec-isl-existentials2000; do
	row "$f" predict "$h/$f.yaml"
done
row jscop-nested-mods predict "$h/jscop-nested-mods.jscop"
row jscop-comment-divide-by-zero predict "$h/jscop-comment-divide-by-zero.jscop"
row "guarded matvec store" predict "$h/spec-matvec-guarded.yaml" --block 256 --fold 1,256
row "guarded matvec store, small --max-work" predict "$h/spec-matvec-guarded.yaml" --block 256 --fold 1,256 --max-work 2000

# Inputs too large to commit: 300 fields of 100 loads (964 KB), a JSCoP
# region of 3,000 statements (2 MB), and a layer-condition sweep of 1,000
# sizes for 4 blocks.
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
lines = ["name: wide", "domain: [600, 600, 600]", "flops: 1", "fields:"]
for f in range(300):
    lines += [f"  - name: F{f}", "    element: 8", "    extent: [640, 640, 640]", "    offset: 10", "    load:"]
    lines += [f"      - [x + {j % 5 - 2}, y + {j // 5 % 5 - 2}, z + {j // 25 - 2}]" for j in range(100)]
lines += ["  - name: OUT", "    element: 8", "    extent: [600, 600, 600]", "    store:", "      - [x, y, z]"]
open(f"{tmp}/fields300-loads100.yaml", "w").write("\n".join(lines) + "\n")
src = json.load(open("examples/polyhedral/star2d-5pt.jscop"))
one = json.dumps(src["statements"][0])
src["statements"] = [json.loads(one.replace("Stmt_for_body4", f"Stmt_s{i}")) for i in range(3000)]
json.dump(src, open(f"{tmp}/region3000.jscop", "w"), indent=3)
PY
row "300 fields x 100 loads (964 KB)" predict "$tmp/fields300-loads100.yaml"
row "JSCoP of 3,000 statements (2 MB)" predict "$tmp/region3000.jscop" --statement all -D N=4096
row "layercond, 1,000 sizes x 4 blocks" layercond star3d-r4 --sweep 64:16384:1000 --block 256,1,2:128,2,2:64,4,2:32,8,2

# The server: a hostile request, then a light one.
port=$((20000 + RANDOM % 20000))
token=hostile-report-token-0123456789
"$bin" serve --listen "127.0.0.1:$port" --token "$token" >"$tmp/serve.out" 2>&1 &
serve=$!
for _ in $(seq 100); do
	curl -s -o /dev/null "http://127.0.0.1:$port/api/devices" && break
	sleep 0.1
done
post() { # post LABEL BODY
	local start end code
	start=$(date +%s.%N)
	code=$(curl -s -o "$tmp/body" -w '%{http_code}' -H "X-Polyvol-Token: $token" -H 'Content-Type: application/json' \
		--data-binary "$2" "http://127.0.0.1:$port/api/predict")
	end=$(date +%s.%N)
	printf '| %s | `POST /api/predict` | %s | %.2f | %d | %s |\n' "$1" "$code" "$(echo "$end - $start" | bc)" \
		"$(($(ps -o rss= -p "$serve" | tr -d ' ') / 1024))" "$(head -c 110 "$tmp/body" | tr '\n' ' ' | sed 's/|/\\|/g')"
}
spec_json() { python3 -c 'import json,sys; print(json.dumps({"spec": open(sys.argv[1]).read()}))' "$1"; }
post "server: spec-isl-nested-mods" "$(spec_json $h/spec-isl-nested-mods.yaml)"
post "server: spec-isl-comment-divide-by-zero" "$(spec_json $h/spec-isl-comment-divide-by-zero.yaml)"
post "server: the next request" '{"example": "vec-copy"}'

# Killing the server's supervising parent with SIGKILL takes the child
# that serves, and its workers, along.
children=$(pgrep -P "$serve" || true)
kill -9 "$serve"
wait "$serve" 2>/dev/null || true
sleep 0.5
left=0
for c in $children; do
	# A zombie has ended; it waits only for its new parent to reap it.
	state=$(ps -o stat= -p "$c" 2>/dev/null || true)
	if [ -n "$state" ] && [ "${state#Z}" = "$state" ]; then left=$((left + 1)); fi
done
echo
echo "server parent killed with SIGKILL: $left of $(echo $children | wc -w) child processes left running"
