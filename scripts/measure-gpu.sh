#!/usr/bin/env bash
# measure-gpu.sh: measure the data volumes of generated kernels on an NVIDIA
# GPU with Nsight Compute, as ground truth for `polyvol measured`.
#
# For every configuration of a sweep it writes the program with
# `polyvol cuda`, compiles it with nvcc, runs it once without the profiler
# (milliseconds per launch, GLup/s) and once under ncu (one launch after the
# warm-up, hardware counters), and appends one row to OUT/SWEEP.csv. The CSV
# schema is described in testdata/measured/README.md.
#
# Usage: scripts/measure-gpu.sh [options] SWEEP...
#
# SWEEP is a built-in sweep or a sweep file:
#   star3d-r4   640x512x512, all 56 blocks of 1024 threads x folds 1,1,1 1,2,1 1,1,2 (168; the paper's space)
#   star3d-r1   512^3, all 56 blocks of 1024 threads, no folding (56)
#   lbm         lbm-d3q19-pull 256^3, all 49 blocks of 512 threads, no folding (49)
#   layercond   star3d-r4, 6 blocks of growing z extent x 10 square xy planes,
#               z = 512*1024*1024/(x*y) (60; the paper's Figure 23 series)
#   FILE        lines "SPEC BLOCK FOLD [DOMAIN]" (e.g. "star3d-r4 64,4,4 1,1,2"); '#' starts a comment;
#               the CSV is named after the file
#
# Options:
#   -o DIR      output directory of the CSV files (default testdata/measured/h100)
#   -w DIR      work directory for programs and raw profiler output (default tmp/measure,
#               git-ignored; carry it to the GPU machine after --phase gen)
#   --phase P   gen: write and (if nvcc exists) compile the programs only;
#               run: measure programs generated before; all (default): both
#   -n N        measure at most N configurations per sweep (a quick check)
#   -r REPS     timed launches of the unprofiled run (default 20)
#   --list      print the configurations of the sweeps and exit
#
# Environment: POLYVOL (polyvol binary; default: go build into the work
# directory), NVCC (default nvcc), NCU (default ncu), ARCH (default sm_90),
# JOBS (parallel compilations, default nproc).
#
# Rows already in a CSV are skipped, so a sweep interrupted by a time limit
# resumes where it stopped when the command is run again.
#
# Expected run time on one H100 (an estimate, not yet measured): ncu start-up
# and counter replay take about 2-4 s per configuration and the unprofiled run
# under 1 s, so star3d-r4 takes about 8-12 min, star3d-r1 and lbm 3-4 min
# each, layercond 4-6 min (larger domains); compiling is 2-3 s per program,
# parallel over JOBS. Split star3d-r4 over two commands where one command may
# not run longer than 10 min: the second run resumes.
set -euo pipefail

METRICS=(
	lts__t_sectors_srcunit_tex_op_read.sum
	lts__t_sectors_srcunit_tex_op_write.sum
	dram__bytes_read.sum
	dram__bytes_write.sum
	l1tex__data_pipe_lsu_wavefronts.sum
	l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
	gpu__time_duration.sum
	sm__warps_active.avg.pct_of_peak_sustained_active
)
WARMUP=2 # untimed launches of every generated program (cudagen.Warmup)

out_dir=testdata/measured/h100
work=tmp/measure
phase=all
limit=0
reps=20
list=false
sweeps=()

die() {
	echo "measure-gpu.sh: $*" >&2
	exit 2
}

while (($# > 0)); do
	case $1 in
	-o) out_dir=${2:?-o needs a directory}; shift 2 ;;
	-w) work=${2:?-w needs a directory}; shift 2 ;;
	--phase) phase=${2:?--phase needs gen, run or all}; shift 2 ;;
	-n) limit=${2:?-n needs a number}; shift 2 ;;
	-r) reps=${2:?-r needs a number}; shift 2 ;;
	--list) list=true; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) sweeps+=("$1"); shift ;;
	esac
done
case $phase in gen | run | all) ;; *) die "--phase $phase: expected gen, run or all" ;; esac
[[ $limit =~ ^[0-9]+$ ]] || die "-n $limit: expected a number"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "-r $reps: expected a positive number"
((${#sweeps[@]} > 0)) || die "no sweep given (built-in: star3d-r4 star3d-r1 lbm layercond; see --help)"

NVCC=${NVCC:-nvcc}
NCU=${NCU:-ncu}
ARCH=${ARCH:-sm_90}
JOBS=${JOBS:-$(nproc)}

# blocks T prints every block "X,Y,Z" with X*Y*Z = T, sides powers of two,
# Z at most 64 (x fastest order as in `polyvol explore`).
blocks() {
	local t=$1 x y z
	for ((x = 1; x <= t; x *= 2)); do
		for ((y = 1; x * y <= t; y *= 2)); do
			z=$((t / (x * y)))
			((z <= 64)) && echo "$x,$y,$z"
		done
	done
	return 0
}

# configs SWEEP prints the sweep's lines "SPEC BLOCK FOLD DOMAIN".
configs() {
	local b f s
	case $1 in
	star3d-r4)
		for f in 1,1,1 1,2,1 1,1,2; do
			for b in $(blocks 1024); do echo "star3d-r4 $b $f 640,512,512"; done
		done
		;;
	star3d-r1)
		for b in $(blocks 1024); do echo "star3d-r1 $b 1,1,1 512,512,512"; done
		;;
	lbm)
		for b in $(blocks 512); do echo "lbm-d3q19-pull $b 1,1,1 256,256,256"; done
		;;
	layercond)
		for b in 512,2,1 256,2,2 128,2,4 64,2,8 32,2,16 16,2,32; do
			for s in 128 192 256 320 384 448 512 640 1024 2048; do
				echo "star3d-r4 $b 1,1,1 $s,$s,$(((512 * 1024 * 1024) / (s * s)))"
			done
		done
		;;
	*)
		[[ -f $1 ]] || die "sweep $1: neither a built-in sweep nor a file"
		local spec block fold domain rest
		while read -r spec block fold domain rest; do
			[[ -z $spec || $spec == \#* ]] && continue
			[[ -n $block && -n $fold && -z $rest ]] || die "$1: expected 'SPEC BLOCK FOLD [DOMAIN]', got '$spec $block $fold $domain $rest'"
			echo "$spec $block $fold ${domain:--}"
		done <"$1"
		;;
	esac
}

sweep_name() { basename "${1%.*}"; }

if $list; then
	for s in "${sweeps[@]}"; do
		n=$(configs "$s" | wc -l)
		echo "# $s: $n configurations"
		configs "$s"
	done
	exit 0
fi

# ---- phase gen: programs and binaries ---------------------------------------

generate() { # SWEEP
	local dir=$work/$(sweep_name "$1") i=0 spec block fold domain args
	mkdir -p "$dir"
	if [[ -z ${POLYVOL:-} ]]; then
		POLYVOL=$work/polyvol
		[[ -x $POLYVOL ]] || go build -o "$POLYVOL" . || die "cannot build polyvol here (run from the repository root, or set POLYVOL)"
	fi
	configs "$1" >"$dir/configs.txt"
	while read -r spec block fold domain; do
		args=(cuda "$spec" --block "$block" --fold "$fold" -o "$dir/$i.cu")
		[[ $domain != - ]] && args+=(--domain "$domain")
		"$POLYVOL" "${args[@]}" 2>"$dir/gen.log" || {
			cat "$dir/gen.log" >&2
			die "polyvol cuda failed for: $spec $block $fold $domain"
		}
		i=$((i + 1))
	done <"$dir/configs.txt"
	echo "generated $i programs in $dir" >&2
	if command -v "$NVCC" >/dev/null; then
		compile "$1"
	elif [[ $phase == gen ]]; then
		echo "nvcc not found: the run phase compiles them" >&2
	fi
}

compile() { # SWEEP
	local dir=$work/$(sweep_name "$1")
	command -v "$NVCC" >/dev/null || die "$NVCC not found"
	echo "compiling $(ls "$dir"/*.cu | wc -l) programs with $NVCC -O3 -arch=$ARCH, $JOBS at a time" >&2
	ls "$dir"/*.cu | sed 's/\.cu$//' | sort -V |
		xargs -P "$JOBS" -I{} sh -c '[ -x "$1" ] && [ "$1" -nt "$1.cu" ] || "$2" -O3 -arch="$3" -o "$1" "$1.cu"' sh {} "$NVCC" "$ARCH" ||
		die "compilation failed"
}

# ---- phase run: environment, counters, rows ---------------------------------

# runtime prints the container runtime as far as it can be told, with the
# evidence: ncu reads counters on Firecracker VMs but failed under gVisor.
runtime() {
	local kernel virt mmio guess=unknown
	kernel=$(uname -r)
	virt=$(systemd-detect-virt 2>/dev/null || true)
	mmio=no
	grep -q virtio_mmio /proc/cmdline 2>/dev/null && mmio=yes
	if dmesg 2>/dev/null | grep -qi gvisor || [[ $kernel == 4.4.0 ]]; then
		guess=gvisor
	elif [[ $mmio == yes || $kernel == *-fc-* ]]; then
		guess=firecracker
	fi
	echo "$guess (uname -r ${kernel}; systemd-detect-virt ${virt:-n/a}; virtio_mmio on kernel command line: $mmio)"
}

environment() {
	command -v nvidia-smi >/dev/null || die "nvidia-smi not found: no NVIDIA driver on this machine"
	command -v "$NCU" >/dev/null || die "$NCU not found"
	local q
	q=$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem --format=csv,noheader,nounits | head -1 | sed 's/ *, */,/g')
	IFS=, read -r gpu_name driver clk_sm clk_mem clk_max_sm clk_max_mem <<<"$q"
	cuda_driver=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -1)
	cuda_nvcc=$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
	ncu_version=$("$NCU" --version | tail -1)
	runtime_info=$(runtime)
}

# header SWEEP writes the comment lines and the column names.
header() {
	echo "# polyvol measurements: scripts/measure-gpu.sh $1"
	echo "# sweep: $(sweep_name "$1")"
	echo "# device: $gpu_name"
	echo "# driver: $driver"
	echo "# cuda: driver $cuda_driver, nvcc $cuda_nvcc"
	echo "# ncu: $ncu_version"
	echo "# clocks_mhz: sm=$clk_sm mem=$clk_mem max_sm=$clk_max_sm max_mem=$clk_max_mem (at start, idle)"
	echo "# runtime: $runtime_info"
	echo "# ncu_options: --clock-control none --cache-control all -k regex:polyvol --launch-skip $WARMUP --launch-count 1"
	echo "# units: sectors (32 B), bytes, wavefronts, nanoseconds, percent"
	echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	local IFS=,
	echo "kernel,block_x,block_y,block_z,fold_x,fold_y,fold_z,domain_x,domain_y,domain_z,lups,reps,time_ms,glups,${METRICS[*]}"
}

# profile BINARY RAW prints the counter values in METRICS order, comma
# separated, from ncu's raw CSV page (header row, units row, value row).
profile() {
	local bin=$1 raw=$2 IFS=,
	"$NCU" --csv --page raw --print-units base --clock-control none \
		-k regex:polyvol --launch-skip "$WARMUP" --launch-count 1 \
		--metrics "${METRICS[*]}" "$bin" 1 >"$raw" 2>"$raw.log" ||
		die "ncu failed on $bin (see $raw.log)"
	local lines=() names units values
	mapfile -t lines < <(grep '^"' "$raw" | tr -d '\r')
	((${#lines[@]} >= 3)) || die "$raw: no profiled launch in ncu's output (see $raw.log)"
	split() { local l=${1#\"}; l=${l%\"}; printf '%s' "${l//\",\"/$'\x1f'}"; }
	IFS=$'\x1f' read -r -a names <<<"$(split "${lines[0]}")"
	IFS=$'\x1f' read -r -a units <<<"$(split "${lines[1]}")"
	IFS=$'\x1f' read -r -a values <<<"$(split "${lines[2]}")"
	local m i v out=()
	for m in "${METRICS[@]}"; do
		v=
		for i in "${!names[@]}"; do
			[[ ${names[$i]} == "$m" ]] || continue
			v=${values[$i]//,/}
			case ${units[$i]:-} in
			"" | byte | sector | nsecond | % | wavefront | cycle | warp) ;;
			usecond) v=$(awk -v v="$v" 'BEGIN { printf "%.17g", v * 1e3 }') ;;
			msecond) v=$(awk -v v="$v" 'BEGIN { printf "%.17g", v * 1e6 }') ;;
			*) die "$raw: unexpected unit '${units[$i]}' of $m (expected base units)" ;;
			esac
		done
		out+=("$v")
	done
	IFS=,
	echo "${out[*]}"
}

measure() { # SWEEP
	local name dir csv i=0 done_rows=0 spec block fold domain key bin line ms glups counters lups
	name=$(sweep_name "$1")
	dir=$work/$name
	csv=$out_dir/$name.csv
	[[ -f $dir/configs.txt ]] || die "$dir/configs.txt missing: run --phase gen first"
	compile "$1"
	mkdir -p "$out_dir"
	[[ -s $csv ]] || header "$1" >"$csv"
	while read -r spec block fold domain; do
		bin=$dir/$i
		i=$((i + 1))
		[[ $domain == - ]] && domain=$(sed -n 's/^constexpr long long D0 = \([0-9]*\), D1 = \([0-9]*\), D2 = \([0-9]*\);.*/\1,\2,\3/p' "$bin.cu")
		key="$spec,$block,$fold,$domain,"
		if cut -d, -f1-10 "$csv" | grep -qxF "${key%,}"; then
			continue
		fi
		if ((limit > 0 && done_rows >= limit)); then
			break
		fi
		line=$("$bin" "$reps") || die "$bin failed: $line"
		[[ $line =~ ms=([0-9.eE+-]+)\ glups=([0-9.eE+-]+) ]] || die "$bin: no result line in '$line'"
		ms=${BASH_REMATCH[1]}
		glups=${BASH_REMATCH[2]}
		counters=$(profile "$bin" "$bin.ncu.csv")
		IFS=, read -r dx dy dz <<<"$domain"
		lups=$((dx * dy * dz))
		echo "$key$lups,$reps,$ms,$glups,$counters" >>"$csv"
		done_rows=$((done_rows + 1))
		echo "$name $i: $spec block $block fold $fold domain $domain: $glups GLup/s" >&2
	done <"$dir/configs.txt"
	echo "$name: $done_rows new rows in $csv" >&2
}

# counter_check profiles one counter first: it tells whether this machine
# lets ncu read counters at all before the long runs start.
counter_check() { # BINARY
	if ! "$NCU" --csv --metrics dram__bytes_read.sum -k regex:polyvol --launch-count 1 "$1" 1 >"$1.check" 2>&1 ||
		! grep -q dram__bytes_read "$1.check"; then
		cat "$1.check" >&2
		die "ncu cannot read counters here (runtime: $runtime_info); see the output above"
	fi
	echo "counters readable (runtime: $runtime_info)" >&2
}

mkdir -p "$work"
for s in "${sweeps[@]}"; do
	[[ $phase == run ]] || generate "$s"
done
if [[ $phase != gen ]]; then
	environment
	echo "device: $gpu_name, driver $driver, CUDA $cuda_driver, ncu $ncu_version; runtime: $runtime_info" >&2
	first=$work/$(sweep_name "${sweeps[0]}")
	compile "${sweeps[0]}"
	counter_check "$first/0"
	for s in "${sweeps[@]}"; do
		measure "$s"
	done
fi
