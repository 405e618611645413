package model

import (
	"fmt"

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
// compiled with loops left, whose bodies count once; "" otherwise.
func InstructionsNote(r *Report) string {
	mix := r.Instructions
	switch {
	case mix == nil:
		return ""
	case mix.Note != "":
		return "instruction mix counted from the spec, not compiled: " + mix.Note
	case mix.OccupancyNote != "":
		return mix.OccupancyNote
	case len(mix.Loops) > 0:
		return fmt.Sprintf("the compiled kernel keeps %d loop(s) (%s); each body counts once in the instruction mix, so the issue bound is an upper bound", len(mix.Loops), mix.Target)
	}
	return ""
}

// StepsNote describes report r of kernel k under launch l where k has a
// state: the redundant share of the computed updates, the shared memory
// per block (kernel.StagedSharedBytes) and what limits the blocks per SM;
// "" for a kernel without a state.
func StepsNote(k *kernel.Kernel, l kernel.Launch, r *Report) string {
	li := r.Launch
	sharedBytes, err := kernel.StagedSharedBytes(k, l)
	if li.Steps == 0 || err != nil { // the estimate has counted the tiles
		return ""
	}
	return fmt.Sprintf("%d time steps per launch: %.1f %% of the computed updates are redundant (%.3g computed per useful update; volumes, flops and GLup/s are per step and useful update); %d bytes of shared memory per block, the state's tile twice; %d blocks per SM, limited by %s",
		li.Steps, 100*(1-1/li.ComputedPerUseful), li.ComputedPerUseful, sharedBytes, li.BlocksPerSM, li.OccupancyLimiter)
}
