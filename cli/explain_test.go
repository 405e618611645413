package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/model"
)

// TestExplainBounds checks predict --explain against the bounds of the
// same prediction's JSON: it names the slowest bound with its volume, the
// next bound and the percentage by which it trails, and a lever for the
// limiter; with --quiet it comes before the prediction line instead of
// being dropped. The roofline model, which has no bounds of its own,
// explains the derived bounds that its table lists.
func TestExplainBounds(t *testing.T) {
	for _, args := range [][]string{
		{"predict", "star3d-r4"},
		{"predict", "vec-copy", "--model", "roofline"},
		{"predict", "star3d-r4", "--block", "32,1,1", "--model", "latency"},
	} {
		var r model.Report
		if err := json.Unmarshal([]byte(mustRun(t, append(args, "--format", "json")...)), &r); err != nil {
			t.Fatal(err)
		}
		bounds := []model.Bound{
			{Name: "L1", GLups: r.Derived.PerfL1},
			{Name: "L2", BytesPerLup: r.Derived.L2LoadV2 + r.Derived.L2Store, GLups: r.Derived.PerfL2V2},
			{Name: "DRAM", BytesPerLup: r.Derived.MemLoadV3 + r.Derived.MemStoreV2, GLups: r.Derived.PerfMemV3},
		}
		if r.Derived.PerfFlops != nil {
			bounds = append(bounds, model.Bound{Name: "flops", GLups: *r.Derived.PerfFlops})
		}
		if r.Derived.PerfIssue != nil {
			bounds = append(bounds, model.Bound{Name: "issue", GLups: *r.Derived.PerfIssue})
		}
		if len(r.Prediction.Bounds) > 0 {
			bounds = r.Prediction.Bounds
		}
		slowest := slices.MinFunc(bounds, compareGLups)
		next := slices.MinFunc(slices.DeleteFunc(slices.Clone(bounds), func(b model.Bound) bool { return b.Name == slowest.Name }), compareGLups)
		want := []string{
			slowest.Name + "-bound",
			fmt.Sprintf("the %s bound, %.2f GLup/s, is the slowest", slowest.Name, slowest.GLups),
			fmt.Sprintf("the next, %s at %.2f GLup/s, trails by %.1f %%", next.Name, next.GLups, 100*(next.GLups/slowest.GLups-1)),
			boundLever(slowest.Name, r.Derived)[:20],
		}
		if slowest.BytesPerLup > 0 {
			want = append(want, fmt.Sprintf("%s-bound at %.2f B/Lup", slowest.Name, slowest.BytesPerLup))
		}
		for _, quiet := range []bool{false, true} {
			a := append(slices.Clone(args), "--explain")
			if quiet {
				a = append(a, "-q")
			}
			out := mustRun(t, a...)
			text := strings.Join(strings.Fields(out), " ")
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("polyvol %s: no %q in\n%s", strings.Join(a, " "), w, out)
				}
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if !strings.HasPrefix(lines[len(lines)-1], "prediction: ") {
				t.Errorf("polyvol %s: the prediction line does not close the output:\n%s", strings.Join(a, " "), out)
			}
		}
	}
	if out := mustRun(t, "predict", "star3d-r4", "-q"); strings.Contains(out, "is the slowest") {
		t.Errorf("predict -q without --explain explains:\n%s", out)
	}
}

// compareGLups orders bounds by GLup/s, the slowest first.
func compareGLups(a, b model.Bound) int { return cmp.Compare(a.GLups, b.GLups) }

// TestExplainStatements checks that predict --statement all --explain
// explains the bounds of every statement, with and without --quiet, and
// prints the legend once.
func TestExplainStatements(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		args := []string{"predict", "testdata/jscop/init-stencil.jscop", "--statement", "all", "-D", "n=4096", "--explain"}
		if quiet {
			args = append(args, "--quiet")
		}
		out := mustRun(t, args...)
		if n := strings.Count(out, "is the slowest"); n != 2 {
			t.Errorf("quiet %v: %d explanations, want one per statement (2):\n%s", quiet, n, out)
		}
		if legends, want := strings.Count(out, "The fields' shares add up to the total"), map[bool]int{false: 1, true: 0}[quiet]; legends != want {
			t.Errorf("quiet %v: %d legends, want %d", quiet, legends, want)
		}
	}
}
