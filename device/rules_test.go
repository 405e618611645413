package device

import (
	"strings"
	"testing"
)

// TestDatabaseRules checks that every database device follows the rules of
// its family as the L1 cycle model of docs/metrics.md §3.8–3.9 states
// them per family (NV: LSU issue term, ⌈(lines+2)/4⌉ tags, wavefronts of
// lane groups, shared memory through the LSUs; CDNA: fusion, scalar cache,
// issue cycles 1 or 4, two tag banks; RDNA: fusion, no issue term, two tag
// banks), and that each rule has a source.
func TestDatabaseRules(t *testing.T) {
	want := map[L1Model]L1Rules{
		L1NV:   {Fusion: FuseNone, ScalarLoads: ScalarVectorL1, Issue: IssueLSULanes, Tag: TagFourPerCycle, DataPipe: DataPipeLaneGroups, SharedIssue: SharedLSULanes},
		L1CDNA: {Fusion: FuseAdjacent, ScalarLoads: ScalarCache, Issue: IssueCoalescedDwords, Tag: TagParityBanks, DataPipe: DataPipeSubWarp, SharedIssue: SharedOwnPipe},
		L1RDNA: {Fusion: FuseAdjacent, ScalarLoads: ScalarVectorL1, Issue: IssueNone, Tag: TagParityBanks, DataPipe: DataPipeSubWarp, SharedIssue: SharedOwnPipe},
	}
	for _, d := range All() {
		if got := d.Rules(); got != want[d.L1Model] {
			t.Errorf("%s (%s): rules %+v, want %+v", d.Name, d.L1Model, got, want[d.L1Model])
		}
		for _, key := range ruleKeys() {
			if src := d.Source(key); !strings.Contains(src, "the "+string(d.L1Model)+" family") {
				t.Errorf("%s: source of %s = %q, want the %s family's", d.Name, key, src, d.L1Model)
			}
		}
		if m := d.Memory(); m.Rules != want[d.L1Model] || m.LSUs != d.LSUs || m.L1AllocBytes != d.L1AllocBytes || m.SharedBanks != DefaultSharedBanks {
			t.Errorf("%s: Memory() = %+v", d.Name, m)
		}
	}
}

// TestRuleOverrides checks a device file that overrides one rule of its
// family: the rule and its source are the file's, the others the family's.
func TestRuleOverrides(t *testing.T) {
	d, err := Parse([]byte(`based_on: MI210
name: MI210-LSU
lsus: 16
l1_rules:
  issue: lsu_lanes
sources:
  lsus, l1_rules.issue: "hypothetical: an issue stage of 16 load/store units"
`), "lsu.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := d.Rules()
	if want := FamilyRules(L1CDNA); r.Issue != IssueLSULanes || r.Fusion != want.Fusion || r.Tag != want.Tag || r.ScalarLoads != want.ScalarLoads || r.SharedIssue != want.SharedIssue {
		t.Errorf("rules %+v, want CDNA's with issue lsu_lanes", r)
	}
	if src := d.Source("l1_rules.issue"); !strings.HasPrefix(src, "hypothetical") {
		t.Errorf("source of the override: %q", src)
	}
	if src := d.Source("l1_rules.tag"); !strings.Contains(src, "the CDNA family") {
		t.Errorf("source of an inherited rule: %q", src)
	}
}

// TestRuleErrors checks that a wrong rule, an override without a source
// and a rule that needs load/store units without them are errors naming
// file, line and key.
func TestRuleErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"based_on: MI100\nname: X\nl1_rules:\n  tag: three_banks\nsources:\n  l1_rules.tag: here\n",
			`x.yaml:4: key "l1_rules.tag": expected one of four_per_cycle, parity_banks, got "three_banks"`},
		{"based_on: MI100\nname: X\nl1_rules:\n  fusion: none\n",
			`no source for the rule "l1_rules.fusion"`},
		{"based_on: MI100\nname: X\nl1_rules:\n  shared_issue: lsu_lanes\nsources:\n  l1_rules.shared_issue: here\n",
			`key "lsus": inherited from MI100; expected a positive number`},
		{"based_on: MI100\nname: X\nl1_model: NV\n",
			`key "lsus": inherited from MI100; expected a positive number`},
		{"based_on: MI100\nname: X\nsources:\n  l1_rules: here\n",
			`"l1_rules" is not a numeric key, rule`},
	} {
		_, err := Parse([]byte(tc.doc), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.doc, err, tc.want)
		}
	}
}
