package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// The volumes below are worked out by hand from the access relations, not
// copied from polyvol's output: each is what the kernel must move at that
// level under the documented counting rules (docs/metrics.md §3 and §4),
// with no cache model in them (no V2 load volumes, no evictions). Sizes on
// the A100-40GB: 32-byte sectors between L1 and L2 (loads and stores), 64-byte
// DRAM fetches for loads and 32-byte DRAM writes for stores, warps of 32.
// Addresses start aligned: a JSCoP's array base is element 0.

// waveLups is the lattice updates of one wave of 256-thread blocks on the
// A100-40GB: 108 SMs, each holding 2048 threads (8 blocks of 256).
const waveLups = 108 * 2048

// handVolume is one volume worked out by hand, in B/Lup.
type handVolume struct {
	stmt   string // the statement's kernel when the file predicts several (--statement all)
	field  string // a load or store field, "" for the kernel's total
	volume string // its key in the report's "derived" (or in a field's entry there)
	want   float64
}

// handVolumeCase is one prediction and the volumes checked in it.
type handVolumeCase struct {
	file  string // in pollyCorpus, or a path from cli/
	flags []string
	want  []handVolume
}

// corpusVolumeCases are the kernels whose volumes are checked by hand: the
// first ones Polly's own JSCoPs, the last three small JSCoPs of the shapes
// the corpus lacks (a strided load over a large domain, a matvec, a 2-D
// 5-point stencil).
var corpusVolumeCases = []handVolumeCase{
	{
		// B[i] = A[i], doubles: a stream that reads and writes each element once.
		file:  "Simplify.sweep_mapped_value___%for---%return.jscop.transformed",
		flags: []string{"--statement", "Stmt_bodyB", "-D", "n=1048576"},
		want: []handVolume{
			// A warp reads 32 consecutive doubles: 8 whole sectors, 256 B per 32 Lups.
			{volume: "L1Load", want: 8},
			// A block's 256 doubles are 2 KiB, loaded from L2 once.
			{volume: "L2LoadV1", want: 8},
			// A wave reads waveLups doubles, a whole number of 64-B fetches.
			{volume: "memLoadV1", want: 8},
			// Each element stored once, 8 whole sectors per warp and 8 B per Lup to DRAM.
			{volume: "L2Store", want: 8},
			{volume: "memStoreV1", want: 8},
			{volume: "memStoreV2", want: 8},
		},
	},
	{
		// B[i] = phi: a store-only stream; the phi is a scalar in a register.
		file:  "Simplify.sweep_mapped_phi___%for---%return.jscop",
		flags: []string{"--statement", "Stmt_bodyB", "-D", "n=1048576"},
		want: []handVolume{
			// Nothing is loaded from memory.
			{volume: "L1Load", want: 0},
			{volume: "memLoadV1", want: 0},
			// Each double written once: 8 B per Lup at L2 and DRAM, with no partial sector to evict.
			{volume: "L2Store", want: 8},
			{volume: "memStoreV1", want: 8},
			{volume: "memStoreV2", want: 8},
		},
	},
	{
		// tmp[i] = f(tmp[i]) over 1200 doubles: an in-place update.
		file:  "GPGPU.partial_writes___%bb2---%bb14.jscop",
		flags: []string{"--statement", "Stmt_bb2"},
		want: []handVolume{
			// 1200 doubles are 9600 B = 150 fetches of 64 B, each element loaded and stored once.
			{volume: "L1Load", want: 8},
			{volume: "L2LoadV1", want: 8},
			{volume: "memLoadV1", want: 8},
			{volume: "L2Store", want: 8},
			{volume: "memStoreV1", want: 8},
		},
	},
	{
		// A[1+i] written (loop1), then read (loop2): a stream one double off alignment.
		file:  "Isl.CodeGen.MemAccess.update_access_functions___%loop1---%exit.jscop",
		flags: []string{"--element", "8", "--statement", "all", "-D", "arg=1048577"},
		want: []handVolume{
			// A warp's 256 B start 8 B into a sector: they span 9 sectors.
			{stmt: "Stmt_loop1", volume: "L2Store", want: 9},
			// A wave's waveLups doubles at 8-B offset: waveLups/4 sectors of 32 B plus one.
			{stmt: "Stmt_loop1", volume: "memStoreV1", want: (waveLups/4 + 1) * 32.0 / waveLups},
			{stmt: "Stmt_loop2", volume: "L1Load", want: 9},
			// A block's 2 KiB at 8-B offset span 65 sectors: 65·32 B per 256 Lups.
			{stmt: "Stmt_loop2", volume: "L2LoadV1", want: 65 * 32.0 / 256},
			// The wave's span plus one 64-B fetch for the offset.
			{stmt: "Stmt_loop2", volume: "memLoadV1", want: (waveLups/8 + 1) * 64.0 / waveLups},
		},
	},
	{
		// The same loops remapped: A[5i-10] and A[13i+5] written, A[42] read by every point.
		file:  "Isl.CodeGen.MemAccess.update_access_functions___%loop1---%exit.jscop.transformed",
		flags: []string{"--element", "8", "--statement", "all", "-D", "arg=1048577"},
		want: []handVolume{
			// Stride 5 doubles = 40 B > 32 B: every store its own sector, at L2 and DRAM.
			{stmt: "Stmt_loop1", volume: "L2Store", want: 32},
			{stmt: "Stmt_loop1", volume: "memStoreV1", want: 32},
			// A broadcast: one sector per warp instruction, one per block, one 64-B fetch per wave (0 in the limit).
			{stmt: "Stmt_loop2", volume: "L1Load", want: 1},
			{stmt: "Stmt_loop2", volume: "L2LoadV1", want: 32.0 / 256},
			{stmt: "Stmt_loop2", volume: "memLoadV1", want: 64.0 / waveLups},
			// Stride 13 doubles = 104 B: again a sector per store.
			{stmt: "Stmt_loop3", volume: "L2Store", want: 32},
			{stmt: "Stmt_loop3", volume: "memStoreV1", want: 32},
		},
	},
	{
		// 4-byte elements one off alignment: arg[1+i] read, arg2[1+i] written.
		file:  "Isl.CodeGen.region_multiexit_partialwrite___%bb3---%bb19.jscop",
		flags: []string{"--statement", "all", "-D", "arg1=1048577"},
		want: []handVolume{
			// A warp's 128 B start 4 B into a sector: 5 sectors per 32 Lups.
			{stmt: "Stmt_bb3__TO__bb10", volume: "L1Load", want: 5},
			// A block's 1 KiB at 4-B offset: 33 sectors per 256 Lups.
			{stmt: "Stmt_bb3__TO__bb10", volume: "L2LoadV1", want: 33 * 32.0 / 256},
			// A wave's 4·waveLups bytes: waveLups/16 fetches of 64 B plus one.
			{stmt: "Stmt_bb3__TO__bb10", volume: "memLoadV1", want: (waveLups/16 + 1) * 64.0 / waveLups},
			{stmt: "Stmt_bb10", volume: "L2Store", want: 5},
			// waveLups/8 writes of 32 B plus one.
			{stmt: "Stmt_bb10", volume: "memStoreV1", want: (waveLups/8 + 1) * 32.0 / waveLups},
		},
	},
	{
		// _pn[i] written, 4-byte elements, aligned.
		file:  "Isl.CodeGen.partial_write_impossible_restriction___%for.body344---%if.then.i.i1141.loopexit.jscop",
		flags: []string{"--statement", "Stmt_cond_end", "-D", "tmp5=1048576"},
		want: []handVolume{
			// 32 lanes × 4 B = 4 whole sectors per warp; each element once to DRAM.
			{volume: "L2Store", want: 4},
			{volume: "memStoreV1", want: 4},
			{volume: "memStoreV2", want: 4},
		},
	},
	{
		// A[i0] += … over i1 < 1024: a reduction, one thread per i0 looping over i1.
		file:  "Isl.Ast.rmsmd___%for.cond---%for.end6.jscop",
		flags: []string{"--element", "8", "-D", "n=524288", "--block", "256,1", "--fold", "1,1024"},
		want: []handVolume{
			// Each thread loads its A[i0] once and stores it once per 1024 Lups,
			// coalesced across the warp: 8/1024 B per Lup at every level.
			{volume: "L1Load", want: 8.0 / 1024},
			{volume: "L2LoadV1", want: 8.0 / 1024},
			{volume: "memLoadV1", want: 8.0 / 1024},
			{volume: "L2Store", want: 8.0 / 1024},
			{volume: "memStoreV1", want: 8.0 / 1024},
		},
	},
	{
		// C[i0] += A[i1], 1024 × 1024: a row sum, one thread per i0 looping over i1.
		file:  "CodeGen.kernel_gemm___%for.cond.1.preheader---%for.end.12.jscop",
		flags: []string{"--element", "8", "-D", "nk=1024", "--block", "32,1", "--fold", "1,1024"},
		want: []handVolume{
			// A[i1] is the same for the whole warp: one sector per instruction.
			{field: "A", volume: "L1Load", want: 1},
			// Each 32-thread block reads all of A, 8 KiB, over 32·1024 Lups.
			{field: "A", volume: "L2LoadV1", want: 8192.0 / (32 * 1024)},
			// The 32 blocks are one wave, which reads A once over 1024·1024 Lups.
			{field: "A", volume: "memLoadV1", want: 8192.0 / (1024 * 1024)},
			// C[i0] loaded and stored once per thread, 1024 Lups.
			{field: "C", volume: "L1Load", want: 8.0 / 1024},
			{field: "C", volume: "L2LoadV1", want: 8.0 / 1024},
			{field: "C", volume: "memLoadV1", want: 8.0 / 1024},
			{volume: "L2Store", want: 8.0 / 1024},
			{volume: "memStoreV1", want: 8.0 / 1024},
		},
	},
	{
		// C[i] += A[i%128] + B[i/128] + A[p%128] + B[p/128], p = 1024: a stream and small tables.
		file:  "Isl.CodeGen.exprModDiv___%for.cond---%for.end.jscop.pow2",
		flags: []string{"--element", "8", "-D", "N=1048576", "-D", "p=1024"},
		want: []handVolume{
			// C[i] read and written once.
			{field: "C", volume: "L1Load", want: 8},
			{field: "C", volume: "L2LoadV1", want: 8},
			{field: "C", volume: "memLoadV1", want: 8},
			{volume: "L2Store", want: 8},
			{volume: "memStoreV1", want: 8},
			// A[i%128]: 8 sectors per warp, plus 1 for A[0] (p%128).
			{field: "A", volume: "L1Load", want: 9},
			// A block's 256 points read all of A (1 KiB, 32 sectors; A[0] among them).
			{field: "A", volume: "L2LoadV1", want: 1024.0 / 256},
			// A wave reads A's 1 KiB once.
			{field: "A", volume: "memLoadV1", want: 1024.0 / waveLups},
			// B[i/128] and B[8]: one sector each per warp, and per block (only blocks 4 and 5,
			// far from the middle wave, hold B[8] in their own sector).
			{field: "B", volume: "L1Load", want: 2},
			{field: "B", volume: "L2LoadV1", want: 64.0 / 256},
		},
	},
	{
		// A[32i0+i1] = …, 32 × 32 doubles: each element written once.
		file:  "Isl.CodeGen.MemAccess.codegen_simple_md___%for.cond---%for.end6.jscop",
		flags: []string{"--element", "8"},
		want: []handVolume{
			{volume: "L2Store", want: 8},
			{volume: "memStoreV1", want: 8},
		},
	},
	{
		// A[16i0+2i1] = …: stride 2, and row i0+1 starts 16 elements after row i0.
		file:  "Isl.CodeGen.MemAccess.codegen_simple_md___%for.cond---%for.end6.jscop.transformed+withoutconst",
		flags: []string{"--element", "8"},
		want: []handVolume{
			// A warp's 32 stores span 64 doubles: 16 sectors per 32 Lups.
			{volume: "L2Store", want: 16},
			// The 1024 stores hit only the even elements 0..558: 140 sectors of 32 B.
			{volume: "memStoreV1", want: 140 * 32.0 / 1024},
		},
	},
	{
		// A[16i0+2i1+5] = …: the same at an odd offset.
		file:  "Isl.CodeGen.MemAccess.codegen_simple_md___%for.cond---%for.end6.jscop.transformed+withconst",
		flags: []string{"--element", "8"},
		want: []handVolume{
			// Elements 16i0+5..16i0+67 are bytes 128i0+40..128i0+543: sectors 4i0+1..4i0+16.
			{volume: "L2Store", want: 16},
			// The odd elements 5..563: sectors 1..140.
			{volume: "memStoreV1", want: 140 * 32.0 / 1024},
		},
	},
	{
		// 100 points: A[99-i] = B[i], then A[i] = A[99-i].
		file:  "Isl.CodeGen.MemAccess.different_types___%bb2---%bb18.jscop",
		flags: []string{"--element", "8", "--statement", "all"},
		want: []handVolume{
			// 100 doubles are 25 sectors, in whichever order: 800 B per 100 Lups.
			{stmt: "Stmt_bb3", volume: "L1Load", want: 8},
			{stmt: "Stmt_bb3", volume: "L2LoadV1", want: 8},
			{stmt: "Stmt_bb3", volume: "L2Store", want: 8},
			{stmt: "Stmt_bb3", volume: "memStoreV1", want: 8},
			// At 64-B fetches the 800 B take 13 fetches, 832 B.
			{stmt: "Stmt_bb3", volume: "memLoadV1", want: 832.0 / 100},
			// The reversed read: 3 warps of 8 sectors and one of 4 lanes in 1 sector.
			{stmt: "Stmt_bb12", volume: "L1Load", want: 25 * 32.0 / 100},
			{stmt: "Stmt_bb12", volume: "memLoadV1", want: 832.0 / 100},
		},
	},
	{
		// 100 points reading Float[8i..8i+3], Short[0], Double[8]; writing Short[i], Float[i], Double[i].
		file:  "Isl.CodeGen.MemAccess.multiple_types___%bb1---%bb22.jscop",
		flags: []string{"--element", "8"},
		want: []handVolume{
			// Point i reads bytes 64i..64i+31: one sector from L2, one 64-B fetch from DRAM.
			{field: "Float", volume: "L2LoadV1", want: 32},
			{field: "Float", volume: "memLoadV1", want: 64},
			// A broadcast over 100 points (4 warps, 1 block, 1 wave): 4 sectors, 1 sector, 1 fetch.
			{field: "Short", volume: "L1Load", want: 4 * 32.0 / 100},
			{field: "Short", volume: "L2LoadV1", want: 32.0 / 100},
			{field: "Short", volume: "memLoadV1", want: 64.0 / 100},
			// Three streams of doubles written once each.
			{volume: "L2Store", want: 3 * 8},
			{volume: "memStoreV1", want: 3 * 8},
		},
	},
	{
		// A[i] = B[0] over 1024 points: a broadcast load and a store stream.
		file:  "Isl.Ast.single_loop_strip_mine___%for.cond---%for.end.jscop",
		flags: []string{"--element", "8"},
		want: []handVolume{
			// One sector per warp instruction, one per 256-thread block, one 64-B fetch for the grid's one wave.
			{volume: "L1Load", want: 1},
			{volume: "L2LoadV1", want: 32.0 / 256},
			{volume: "memLoadV1", want: 64.0 / 1024},
			{volume: "L2Store", want: 8},
			{volume: "memStoreV1", want: 8},
		},
	},
	{
		// B[i] = A[2i], doubles.
		file:  "testdata/jscop/strided-copy.jscop",
		flags: []string{"-D", "n=1048576"},
		want: []handVolume{
			// Stride 2: a warp's 32 loads span 64 doubles, all 16 sectors; a block's all 128;
			// a wave's every 64-B fetch (4 loads each). 16 B per Lup at L1, L2 and DRAM.
			{volume: "L1Load", want: 16},
			{volume: "L2LoadV1", want: 16},
			{volume: "memLoadV1", want: 16},
			{volume: "L2Store", want: 8},
			{volume: "memStoreV1", want: 8},
		},
	},
	{
		// y[i] += M[i][j]·x[j], n = 1024: one thread per row looping over j.
		file:  "testdata/jscop/matvec.jscop",
		flags: []string{"-D", "n=1024", "--block", "256,1", "--fold", "1,1024"},
		want: []handVolume{
			// The warp's 32 rows are 8 KiB apart: 32 sectors per instruction.
			{field: "M", volume: "L1Load", want: 32},
			// A block reads its 256 rows once (8 B per Lup); the grid's 4 blocks are one wave, which reads M once.
			{field: "M", volume: "L2LoadV1", want: 8},
			{field: "M", volume: "memLoadV1", want: 8},
			// x[j]: one sector per warp instruction; all of x (8 KiB) per block of 256·1024 Lups, and once per wave.
			{field: "x", volume: "L1Load", want: 1},
			{field: "x", volume: "L2LoadV1", want: 8192.0 / (256 * 1024)},
			{field: "x", volume: "memLoadV1", want: 8192.0 / (1024 * 1024)},
			// y[i] loaded and stored once per thread of 1024 Lups.
			{field: "y", volume: "L1Load", want: 8.0 / 1024},
			{field: "y", volume: "memLoadV1", want: 8.0 / 1024},
			{volume: "L2Store", want: 8.0 / 1024},
			{volume: "memStoreV1", want: 8.0 / 1024},
		},
	},
	{
		// B[i][j] = A[i][j+1] + A[i+1][j..j+2] + A[i+2][j+1], 4096 × 4096, rows 4104 doubles
		// apart (32-B aligned), default block 256,2.
		file: "testdata/jscop/jacobi2d.jscop",
		want: []handVolume{
			// Per warp: 9 sectors for each access at column offset 1 or 2, 8 at offset 0: 4·9+8.
			{volume: "L1Load", want: 44},
			// A block's 4 rows of A, each columns 256b..256b+257 (or a subset) = 65 sectors: 260·32 B per 512 Lups.
			{volume: "L2LoadV1", want: 4 * 65 * 32.0 / 512},
			{volume: "L2Store", want: 8},
			{volume: "memStoreV1", want: 8},
		},
	},
}

// TestCorpusVolumesByHand predicts each kernel of corpusVolumeCases once and
// compares its volumes with the ones worked out by hand.
func TestCorpusVolumesByHand(t *testing.T) {
	corpus := 0
	for _, c := range corpusVolumeCases {
		if !strings.Contains(c.file, "/") {
			corpus++
		}
	}
	if corpus < 10 {
		t.Errorf("%d corpus files checked by hand, want at least 10", corpus)
	}
	for _, c := range corpusVolumeCases {
		path := c.file
		if !strings.Contains(path, "/") {
			path = filepath.Join(pollyCorpus, path)
		}
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			t.Parallel()
			args := append([]string{"predict", path, "--device", "A100-40GB", "--format", "json"}, c.flags...)
			reports, err := derivedByStatement(mustRun(t, args...))
			if err != nil {
				t.Fatalf("polyvol %s: %v", strings.Join(args, " "), err)
			}
			for _, w := range c.want {
				d, ok := reports[w.stmt]
				if !ok {
					t.Errorf("no kernel for statement %q", w.stmt)
					continue
				}
				got, err := handVolumeOf(d, w.field, w.volume)
				if err != nil {
					t.Errorf("%s: %v", w.name(), err)
					continue
				}
				if math.Abs(got-w.want) > 1e-9*max(1, math.Abs(w.want)) {
					t.Errorf("%s = %.9g B/Lup, by hand %.9g", w.name(), got, w.want)
				}
			}
		})
	}
}

// name says which volume w is, for messages.
func (w handVolume) name() string {
	s := w.volume
	if w.field != "" {
		s = w.field + " " + s
	}
	if w.stmt != "" {
		s = w.stmt + " " + s
	}
	return s
}

// derivedByStatement returns the "derived" objects of a predict --format json
// output: under "" for a single report, under each statement's name for the
// kernels of --statement all.
func derivedByStatement(out string) (map[string]map[string]any, error) {
	var doc struct {
		Derived map[string]any `json:"derived"`
		Kernels []struct {
			Statement string `json:"statement"`
			Report    struct {
				Derived map[string]any `json:"derived"`
			} `json:"report"`
		} `json:"kernels"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return nil, err
	}
	m := map[string]map[string]any{}
	if doc.Derived != nil {
		m[""] = doc.Derived
	}
	for _, k := range doc.Kernels {
		m[k.Statement] = k.Report.Derived
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("no report in the output")
	}
	return m, nil
}

// handVolumeOf returns a volume of a "derived" object: the total, or the
// entry of the named field among the store fields (L2Store, memStore…) or the
// load fields (every other volume).
func handVolumeOf(d map[string]any, field, volume string) (float64, error) {
	if field != "" {
		list := "loadFields"
		if strings.HasPrefix(volume, "L2Store") || strings.HasPrefix(volume, "memStore") {
			list = "storeFields"
		}
		entries, _ := d[list].([]any)
		d = nil
		for _, e := range entries {
			if f, ok := e.(map[string]any); ok && f["name"] == field {
				d = f
			}
		}
		if d == nil {
			return 0, fmt.Errorf("no field %q in %s", field, list)
		}
	}
	v, ok := d[volume].(float64)
	if !ok {
		return 0, fmt.Errorf("no volume %q", volume)
	}
	return v, nil
}
