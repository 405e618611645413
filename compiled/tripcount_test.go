package compiled

import (
	"context"
	"os"
	"reflect"
	"testing"
)

// TestParseTripCounts reads opt's loop execution counts, written as opt 19
// prints them: a constant backedge-taken count b is b + 1 iterations; a
// symbolic one leaves the constant maximum; a loop with several exits
// states its counts after "<multiple exits>"; a negative constant is the
// unsigned count of its width (i32 -2: 2^32 − 2); a count past an int64
// (i64 -1: 2^64 − 1) is unknown; loops are keyed by function.
func TestParseTripCounts(t *testing.T) {
	text := `Printing analysis 'Scalar Evolution Analysis' for function '_Z1kPKfPfi':
Determining loop execution counts for: @_Z1kPKfPfi
Loop %for.body9: backedge-taken count is i32 -2
Loop %for.body9: constant max backedge-taken count is i32 -2
Loop %for.body9: symbolic max backedge-taken count is i32 -2
Loop %for.body9: Trip multiple is 4294967295
Loop %for.body: <multiple exits> Unpredictable backedge-taken count.
  exit count for for.body: ***COULDNOTCOMPUTE***
  exit count for if.end: i32 99
Loop %for.body: constant max backedge-taken count is i32 99
Loop %for.body: symbolic max backedge-taken count is i32 99
Loop %for.body18: backedge-taken count is (-1 + %n)
Loop %for.body18: constant max backedge-taken count is i32 2147483646
Loop %wide: backedge-taken count is i64 -1
Loop %wide: constant max backedge-taken count is i64 -1
Printing analysis 'Scalar Evolution Analysis' for function '_Z1jv':
Determining loop execution counts for: @_Z1jv
Loop %for.body: backedge-taken count is i64 0
Loop %for.body: constant max backedge-taken count is i64 0
`
	want := TripCounts{
		"_Z1kPKfPfi": {
			"for.body9":  {Exact: 1<<32 - 1},
			"for.body":   {Max: 100},
			"for.body18": {Max: 1<<31 - 1},
			"wide":       {},
		},
		"_Z1jv": {"for.body": {Exact: 1}},
	}
	if got := ParseTripCounts(text); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestParsePTXTripCounts reads testdata/loops.ptx, clang's code of
// testdata/loops.cu for sm_80, with its trip counts (testdata/loops.ptx.scev),
// counted by hand. Kernel nested: the entry block has 6 integer
// instructions (shl, add and four moves) and 2 special-register reads;
// the outer loop's header (%for.cond2.preheader, 100 iterations) 3
// integer; the inner loop (%for.body5, 7 per outer iteration, 700 in all)
// 3 integer, a global load, an FP32 add, a compare and 2 branches; the
// outer loop's latch 2 integer, a compare and 2 branches; the check of n
// a compare, a move and a branch; the loop over n (%for.body18, count
// unknown: once) 4 integer, a load, an add, a compare and 2 branches; the
// end 2 integer and the store.
func TestParsePTXTripCounts(t *testing.T) {
	ptx, err := os.ReadFile("testdata/loops.ptx")
	if err != nil {
		t.Fatal(err)
	}
	scev, err := os.ReadFile("testdata/loops.ptx.scev")
	if err != nil {
		t.Fatal(err)
	}
	code, err := ParsePTX(string(ptx), "nested", ParseTripCounts(string(scev)))
	if err != nil {
		t.Fatal(err)
	}
	want := Counts{
		Integer:      6 + 100*3 + 700*3 + 100*2 + 1 + 4 + 2,
		GlobalLoads:  700 + 1,
		GlobalStores: 1,
		FP32:         700 + 1,
		Compares:     700 + 100 + 1 + 1,
		Branches:     700*2 + 100*2 + 1 + 2,
		Other:        2,
	}
	if code.Counts != want {
		t.Errorf("counts %+v, want %+v", code.Counts, want)
	}
	wantLoops := []Loop{
		{Depth: 1, Instructions: 16, Header: "for.cond2.preheader", TripCount: 100},
		{Depth: 1, Instructions: 9, Header: "for.body18", MaxTripCount: 1<<31 - 1},
		{Depth: 2, Instructions: 8, Header: "for.body5", TripCount: 7},
	}
	if !reflect.DeepEqual(code.Loops, wantLoops) {
		t.Errorf("loops %+v, want %+v", code.Loops, wantLoops)
	}
	if code.TripCountsKnown() {
		t.Error("the loop over n has no trip count, yet all are known")
	}
	// Without trip counts every body counts once.
	once, err := ParsePTX(string(ptx), "nested", nil)
	if err != nil {
		t.Fatal(err)
	}
	if once.Counts.GlobalLoads != 2 || once.Counts.Integer != 6+3+3+2+1+4+2 || once.Loops[0].TripCount != 0 {
		t.Errorf("without trip counts: %v loads, %v integer, loops %+v; want 2, 21, no trip counts", once.Counts.GlobalLoads, once.Counts.Integer, once.Loops)
	}
}

// TestParseAMDGPUTripCounts reads testdata/loops.s, clang's code of
// testdata/loops.cu for gfx90a, with its trip counts
// (testdata/loops.s.scev), counted by hand. Kernel nested: the entry
// block has a constant load, 4 vector integer instructions and a scalar
// move; the outer loop's header (%for.cond4.preheader, 100 iterations) 4
// integer and a scalar move; the inner loop (%for.body7, 700 in all) 3
// integer, a global load, 3 scalar, an FP32 add and a branch; the outer
// loop's latch, a block without a label (%bb.3), 2 scalar, an integer and
// a branch; the check of n a constant load, a scalar compare and a
// branch, then 2 moves; the loop over n (%for.body20, count unknown:
// once) 5 integer, a load, 2 scalar, an add and a branch; the end 5
// integer and the store. Waits issue nothing but count in a loop's size.
func TestParseAMDGPUTripCounts(t *testing.T) {
	asm, err := os.ReadFile("testdata/loops.s")
	if err != nil {
		t.Fatal(err)
	}
	scev, err := os.ReadFile("testdata/loops.s.scev")
	if err != nil {
		t.Fatal(err)
	}
	code, err := ParseAMDGPU(string(asm), "nested", ParseTripCounts(string(scev)))
	if err != nil {
		t.Fatal(err)
	}
	want := Counts{
		Integer:      4 + 100*4 + 700*3 + 100*1 + 2 + 5 + 5,
		Scalar:       1 + 100*1 + 700*3 + 100*2 + 1 + 2,
		Constant:     2,
		GlobalLoads:  700 + 1,
		GlobalStores: 1,
		FP32:         700 + 1,
		Branches:     700 + 100 + 1 + 1,
	}
	if code.Counts != want {
		t.Errorf("counts %+v, want %+v", code.Counts, want)
	}
	wantLoops := []Loop{
		{Depth: 1, Instructions: 5 + 10 + 4, Header: "for.cond4.preheader", TripCount: 100},
		{Depth: 1, Instructions: 11, Header: "for.body20", MaxTripCount: 1<<31 - 1},
		{Depth: 2, Instructions: 10, Header: "for.body7", TripCount: 7},
	}
	if !reflect.DeepEqual(code.Loops, wantLoops) {
		t.Errorf("loops %+v, want %+v", code.Loops, wantLoops)
	}
}

// TestCompileTripCounts compiles testdata/loops.cu for an NVIDIA and two
// AMD architectures. Every iteration loads one float and adds it, so the
// weighted global loads and FP32 instructions are the iterations: kernel
// nested 100 × 7 + 1 (the loop over the argument n counts once, its trip
// count unknown), kernel counted 9 + 12 (the loop of 12 unrolled by 4: 3
// trips of 4 loads), one store each.
func TestCompileTripCounts(t *testing.T) {
	c := testCompiler(t)
	code, err := os.ReadFile("testdata/loops.cu")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		entry      string
		iterations float64
		trips      []int64 // of the loops by depth, largest body first; 0: unknown
		known      bool
	}{
		{"nested", 100*7 + 1, []int64{100, 0, 7}, false},
		{"counted", 9 + 12, []int64{3, 9}, true},
	}
	for _, arch := range []string{"sm_80", "gfx90a", "gfx1100"} {
		for _, tc := range cases {
			got, err := c.Compile(context.Background(), Source{Name: "loops.cu", Code: string(code), Entry: tc.entry}, arch)
			if err != nil {
				t.Fatalf("%s for %s: %v", tc.entry, arch, err)
			}
			n := got.Counts
			if n.GlobalLoads != tc.iterations || n.FP32 != tc.iterations || n.GlobalStores != 1 {
				t.Errorf("%s for %s: %v global loads, %v FP32, %v stores; want %v, %v, 1", tc.entry, arch, n.GlobalLoads, n.FP32, n.GlobalStores, tc.iterations, tc.iterations)
			}
			var trips []int64
			for _, l := range got.Loops {
				trips = append(trips, l.TripCount)
			}
			if !reflect.DeepEqual(trips, tc.trips) || got.TripCountsKnown() != tc.known {
				t.Errorf("%s for %s: loops %+v, want trip counts %v (all known: %v)", tc.entry, arch, got.Loops, tc.trips, tc.known)
			}
		}
	}
}
