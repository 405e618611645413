package device

import (
	"reflect"
	"strings"
)

// L1Rules are the behaviours of a device's load/store path that the
// counter (package footprint) follows, each named by what the hardware does
// (docs/devices.md, "L1 rules"). The family of l1_model presets all of
// them (FamilyRules); a device's l1_rules override them key by key, and an
// empty rule keeps the family's.
type L1Rules struct {
	// Fusion: whether a thread's accesses to adjacent addresses of one
	// field fuse into vector accesses of up to 16 bytes.
	Fusion Fusion `yaml:"fusion,omitempty"`
	// ScalarLoads: whether loads uniform across a warp (kernel fields
	// marked scalar) pass the vector L1 or a scalar cache of their own.
	ScalarLoads ScalarLoads `yaml:"scalar_loads,omitempty"`
	// Issue: the issue term of a warp instruction in the L1.
	Issue L1Issue `yaml:"issue,omitempty"`
	// Tag: the tag term of a warp instruction, from its distinct
	// allocation lines; l1_tag_cycles_per_line, where positive, replaces
	// it.
	Tag L1Tag `yaml:"tag,omitempty"`
	// DataPipe: how the data pipe serves accesses wider than 4 bytes.
	DataPipe DataPipe `yaml:"data_pipe,omitempty"`
	// SharedIssue: the issue cost of a shared-memory instruction besides
	// its banks.
	SharedIssue SharedIssue `yaml:"shared_issue,omitempty"`
}

// Fusion is the rule l1_rules.fusion.
type Fusion string

// The values of l1_rules.fusion.
const (
	// FuseAdjacent fuses a thread's accesses to adjacent addresses into
	// vector accesses of up to 16 bytes (docs/metrics.md §3.9).
	FuseAdjacent Fusion = "adjacent"
	// FuseNone keeps every access an instruction of its own width.
	FuseNone Fusion = "none"
)

// ScalarLoads is the rule l1_rules.scalar_loads.
type ScalarLoads string

// The values of l1_rules.scalar_loads.
const (
	// ScalarVectorL1 counts uniform loads in the vector L1 as any other.
	ScalarVectorL1 ScalarLoads = "vector_l1"
	// ScalarCache serves uniform loads from a scalar cache: they add no
	// issue, tag or data-pipe cycles to the vector L1, only their lines'
	// allocation (docs/metrics.md §3.8.7).
	ScalarCache ScalarLoads = "scalar_cache"
)

// L1Issue is the rule l1_rules.issue (docs/metrics.md §3.8.5).
type L1Issue string

// The values of l1_rules.issue.
const (
	// IssueLSULanes: the load/store units take 4 bytes of one lane each
	// per cycle, sub_warp_size·w/(lsus·4) cycles for an access of w
	// bytes per lane.
	IssueLSULanes L1Issue = "lsu_lanes"
	// IssueCoalescedDwords: 1 cycle for an access of consecutive 4-byte
	// words in lane order, else 4.
	IssueCoalescedDwords L1Issue = "coalesced_dwords"
	// IssueNone: no issue term.
	IssueNone L1Issue = "none"
)

// L1Tag is the rule l1_rules.tag (docs/metrics.md §3.8.4).
type L1Tag string

// The values of l1_rules.tag.
const (
	// TagFourPerCycle resolves four lines per cycle after a fixed
	// overhead of two: ⌈(max(1, lines)+2)/4⌉ cycles.
	TagFourPerCycle L1Tag = "four_per_cycle"
	// TagParityBanks has two tag banks, selected by the line number's
	// parity, each resolving one line per cycle: max(even lines, odd
	// lines) cycles.
	TagParityBanks L1Tag = "parity_banks"
)

// DataPipe is the rule l1_rules.data_pipe (docs/metrics.md §3.8.3,
// §3.8.9).
type DataPipe string

// The values of l1_rules.data_pipe.
const (
	// DataPipeLaneGroups serves an access wider than 4 bytes in groups of
	// l1_bank_width/w consecutive lanes, one wavefront of at most
	// l1_bank_width bytes after another (a half-warp for 8-byte, a
	// quarter-warp for 16-byte accesses), where the method counts
	// wavefronts (footprint.WarpRules.WavefrontLanes).
	DataPipeLaneGroups DataPipe = "lane_groups"
	// DataPipeSubWarp takes the worst bank over the whole sub-warp.
	DataPipeSubWarp DataPipe = "sub_warp"
)

// SharedIssue is the rule l1_rules.shared_issue.
type SharedIssue string

// The values of l1_rules.shared_issue.
const (
	// SharedLSULanes: shared-memory instructions pass the L1's load/store
	// units, whose issue term (IssueLSULanes) they pay.
	SharedLSULanes SharedIssue = "lsu_lanes"
	// SharedOwnPipe: shared memory has a pipe of its own; only its banks
	// cost cycles.
	SharedOwnPipe SharedIssue = "own_pipe"
)

// familyRules are the rules of each L1 family with their sources.
var familyRules = map[L1Model]struct {
	rules   L1Rules
	sources map[string]string
}{
	L1NV: {
		L1Rules{Fusion: FuseNone, ScalarLoads: ScalarVectorL1, Issue: IssueLSULanes, Tag: TagFourPerCycle, DataPipe: DataPipeLaneGroups, SharedIssue: SharedLSULanes},
		map[string]string{
			"fusion":       "the NV family (docs/metrics.md §3.9): the L1 model of Ernst et al. 2023 fuses accesses on CDNA and RDNA only; an NVIDIA warp instruction has its element's width",
			"scalar_loads": "the NV family (docs/metrics.md §3.8.7): uniform global loads pass an NVIDIA SM's L1 as any other; only CDNA's scalar fields leave the cycle terms of Ernst et al. 2023's reference implementation",
			"issue":        "the NV family (docs/metrics.md §3.8.5): the L1 model of Ernst et al. 2023, LSU term sub_warp_size·w/(lsus·4), checked against l1tex__data_pipe_lsu_wavefronts on the A100 (its Figure 12)",
			"tag":          "the NV family (docs/metrics.md §3.8.4): the tag term ⌈(lines+2)/4⌉ of the L1 model of Ernst et al. 2023's reference implementation",
			"data_pipe":    "the NV family (docs/metrics.md §3.8.9): Ernst et al. 2023 count wavefronts of at most l1_bank_width bytes, a half-warp of 8-byte and a quarter-warp of 16-byte accesses at a time",
			"shared_issue": "the NV family (docs/metrics.md §3.8.5): shared memory and the L1 data cache of an NVIDIA SM are one unit behind the same load/store units (Volta and A100 architecture whitepapers), so a shared-memory instruction pays the LSU term",
		},
	},
	L1CDNA: {
		L1Rules{Fusion: FuseAdjacent, ScalarLoads: ScalarCache, Issue: IssueCoalescedDwords, Tag: TagParityBanks, DataPipe: DataPipeSubWarp, SharedIssue: SharedOwnPipe},
		map[string]string{
			"fusion":       "the CDNA family (docs/metrics.md §3.9): the reference (Warpspeed) implementation of Ernst et al. 2023 fuses a thread's adjacent accesses into vector loads of up to 16 bytes (global_load_dwordx2/x4 of the CDNA ISA)",
			"scalar_loads": "the CDNA family (docs/metrics.md §3.8.7, §8 item 9): uniform loads go to the scalar unit's scalar data cache (s_load of the CDNA ISA), not the vector L1; empirical rule of the reference (Warpspeed) implementation",
			"issue":        "the CDNA family (docs/metrics.md §3.8.5, §8 item 9): 1 cycle for a coalesced 4-byte access, else 4; empirical rule of the reference (Warpspeed) implementation",
			"tag":          "the CDNA family (docs/metrics.md §3.8.4): two tag banks selected by line parity, the reference (Warpspeed) implementation's rule",
			"data_pipe":    "the CDNA family (docs/metrics.md §3.8.3): the worst bank over the sub-warp, the reference (Warpspeed) implementation's rule",
			"shared_issue": "the CDNA family: the LDS has its own pipe beside the vector memory path (CDNA ISA guides), so only its banks cost cycles",
		},
	},
	L1RDNA: {
		L1Rules{Fusion: FuseAdjacent, ScalarLoads: ScalarVectorL1, Issue: IssueNone, Tag: TagParityBanks, DataPipe: DataPipeSubWarp, SharedIssue: SharedOwnPipe},
		map[string]string{
			"fusion":       "the RDNA family (docs/metrics.md §3.9): the reference (Warpspeed) implementation of Ernst et al. 2023 fuses a thread's adjacent accesses into vector loads of up to 16 bytes (global_load_dwordx2/x4 of the RDNA ISA)",
			"scalar_loads": "the RDNA family (docs/metrics.md §3.8.7): only CDNA's scalar fields leave the cycle terms of the reference (Warpspeed) implementation; RDNA's count in the vector L1 as any other",
			"issue":        "the RDNA family (docs/metrics.md §3.8.5): no issue term, the reference (Warpspeed) implementation's rule",
			"tag":          "the RDNA family (docs/metrics.md §3.8.4): two tag banks selected by line parity, the reference (Warpspeed) implementation's rule",
			"data_pipe":    "the RDNA family (docs/metrics.md §3.8.3): the worst bank over the sub-warp, the reference (Warpspeed) implementation's rule",
			"shared_issue": "the RDNA family: the LDS has its own pipe beside the vector memory path (RDNA ISA guides), so only its banks cost cycles",
		},
	},
}

// FamilyRules returns the rules that the L1 family m presets; the zero
// L1Rules for a model that is not a family.
func FamilyRules(m L1Model) L1Rules { return familyRules[m].rules }

// Rules returns the device's L1 rules: its family's (FamilyRules of
// L1Model) with the rules of l1_rules in their place.
func (d *Device) Rules() L1Rules {
	r := FamilyRules(d.L1Model)
	set, over := reflect.ValueOf(&r).Elem(), reflect.ValueOf(d.L1RuleOverrides)
	for i := range over.NumField() {
		if over.Field(i).String() != "" {
			set.Field(i).Set(over.Field(i))
		}
	}
	return r
}

// ruleKeysPrefix is the dotted prefix of the rule keys in sources.
const ruleKeysPrefix = "l1_rules."

// RuleSetting is one rule under its dotted key, e.g. {"l1_rules.tag",
// "parity_banks"}.
type RuleSetting struct{ Key, Value string }

// Settings lists the rules of r under their dotted keys in schema order,
// empty ones included.
func (r L1Rules) Settings() []RuleSetting {
	v := reflect.ValueOf(r)
	out := make([]RuleSetting, v.NumField())
	for i := range out {
		name := strings.Split(v.Type().Field(i).Tag.Get("yaml"), ",")[0]
		out[i] = RuleSetting{ruleKeysPrefix + name, v.Field(i).String()}
	}
	return out
}

// ruleKeys lists the dotted keys of the rules ("l1_rules.fusion", …) in
// schema order.
func ruleKeys() []string {
	var keys []string
	for _, s := range (L1Rules{}).Settings() {
		keys = append(keys, s.Key)
	}
	return keys
}

// ruleValues are the values each rule key allows, in schema order.
var ruleValues = map[string][]string{
	"l1_rules.fusion":       {string(FuseAdjacent), string(FuseNone)},
	"l1_rules.scalar_loads": {string(ScalarVectorL1), string(ScalarCache)},
	"l1_rules.issue":        {string(IssueLSULanes), string(IssueCoalescedDwords), string(IssueNone)},
	"l1_rules.tag":          {string(TagFourPerCycle), string(TagParityBanks)},
	"l1_rules.data_pipe":    {string(DataPipeLaneGroups), string(DataPipeSubWarp)},
	"l1_rules.shared_issue": {string(SharedLSULanes), string(SharedOwnPipe)},
}

// ruleOverrides returns the rules that d's l1_rules set, by dotted key.
func (d *Device) ruleOverrides() map[string]string {
	out := map[string]string{}
	for _, s := range d.L1RuleOverrides.Settings() {
		if s.Value != "" {
			out[s.Key] = s.Value
		}
	}
	return out
}

// familySource returns the source of the rule under the dotted key in the
// preset of d's family, or "".
func (d *Device) familySource(key string) string {
	name, ok := strings.CutPrefix(key, ruleKeysPrefix)
	if !ok {
		return ""
	}
	return familyRules[d.L1Model].sources[name]
}
