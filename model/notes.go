package model

import (
	"fmt"
	"strings"

	"github.com/polyvol/polyvol/compiled"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
)

// Note is a remark about an estimate whose inputs are valid but probably
// not meant, or where the estimate counts differently from a naive reading:
// kernel.Note, so that a report lists the kernel's notes (kernel.Lint)
// beside those of its launch.
type Note = kernel.Note

// Codes of the notes that LaunchNotes gives.
const (
	NoteGrid          = "grid-too-large"     // kernel.Launch.GridNote
	NoteIdleThreads   = "idle-threads"       // IdleNote
	NoteGridResident  = "grid-resident-l1"   // ResidentNote
	NoteRegisters     = "registers"          // RegisterNote
	NotePartialAccess = "partial-access"     // PartialNote
	NoteTLBReach      = "tlb-reach-exceeded" // TLBNote
	NoteInstructions  = "instructions"       // InstructionsNote
	NoteSteps         = "time-steps"         // StepsNote
	NoteSpills        = "spills"             // SpillNote
)

// LaunchNotes gathers the notes on report r of kernel k under launch l on
// dev, with the kernel's registers per thread and shared bytes per block,
// in the order a reader meets them: the launch, its threads, the counting,
// the resources, the kernel's accesses, the TLB, the instruction mix.
func LaunchNotes(k *kernel.Kernel, l kernel.Launch, r *Report, dev *device.Device, registers int, sharedBytes int64) []Note {
	var notes []Note
	for _, n := range []Note{
		{Code: NoteGrid, Text: l.GridNote()},
		{Code: NoteIdleThreads, Text: IdleNote(l, int64(dev.WarpSize))},
		{Code: NoteGridResident, Text: ResidentNote(r)},
		{Code: NoteRegisters, Text: RegisterNote(r, dev, registers, sharedBytes)},
		{Code: NotePartialAccess, Text: PartialNote(k)},
		{Code: NoteTLBReach, Text: TLBNote(r, dev)},
		{Code: NoteInstructions, Text: InstructionsNote(r)},
		{Code: NoteSpills, Text: SpillNote(r)},
		{Code: NoteSteps, Text: StepsNote(k, l, r)},
	} {
		if n.Text != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

// InstructionsNote says where report r's instruction mix is less than the
// compiled code's: counted from the spec because no compile was to be had
// (and why), compiled but with registers the occupancy leaves out, or
// compiled with loops left whose trip counts the compiler does not know,
// whose bodies count once per entry (loopsNote); "" otherwise.
func InstructionsNote(r *Report) string {
	mix := r.Instructions
	switch {
	case mix == nil:
		return ""
	case mix.Note != "":
		return "instruction mix counted from the spec, not compiled: " + mix.Note
	case mix.OccupancyNote != "":
		return mix.OccupancyNote
	}
	return loopsNote(mix.Loops, mix.Target)
}

// loopsNote names the loops of compiled code for target whose trip counts
// the compiler does not know: their bodies count once per entry, so the
// instruction counts and the issue time are lower bounds (the issue
// bound's GLup/s an upper bound); "" where every trip count is known.
func loopsNote(loops []compiled.Loop, target string) string {
	var unknown []string
	for _, l := range loops {
		if l.TripCount > 0 {
			continue
		}
		name := "an unnamed loop"
		if l.Header != "" {
			name = "loop " + l.Header
		}
		bound := ""
		if l.MaxTripCount > 0 {
			bound = fmt.Sprintf(", at most %d iterations", l.MaxTripCount)
		}
		unknown = append(unknown, fmt.Sprintf("%s (depth %d, %d instructions%s)", name, l.Depth, l.Instructions, bound))
	}
	if len(unknown) == 0 {
		return ""
	}
	return fmt.Sprintf("the compiled kernel (%s) keeps %d loop(s) whose trip count the compiler does not know: %s; each such body counts once per entry in the instruction mix, so the instruction counts and the issue time are lower bounds (the issue bound's GLup/s an upper bound)",
		target, len(unknown), strings.Join(unknown, "; "))
}

// StepsNote describes report r of kernel k under launch l where k has a
// state: the redundant share of the computed updates, the lanes that the
// steps' warps issue per useful update's (idle lanes included), the shared memory
// per block (kernel.StagedSharedBytes) and what limits the blocks per SM;
// "" for a kernel without a state.
func StepsNote(k *kernel.Kernel, l kernel.Launch, r *Report) string {
	li := r.Launch
	sharedBytes, err := kernel.StagedSharedBytes(k, l)
	if li.Steps == 0 || err != nil { // the estimate has counted the tiles
		return ""
	}
	return fmt.Sprintf("%d time steps per launch: %.1f %% of the computed updates are redundant (%.3g computed per useful update, %.3g lanes issued by the warps, idle ones included, per useful update's lane; volumes, flops and GLup/s are per step and useful update); %d bytes of shared memory per block, the state's tile twice; %d blocks per SM, limited by %s",
		li.Steps, 100*(1-1/li.ComputedPerUseful), li.ComputedPerUseful, li.IssuedPerUseful, sharedBytes, li.BlocksPerSM, li.OccupancyLimiter)
}
