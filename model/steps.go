package model

import (
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
)

// Time steps per launch (kernel.StepWork): the counts of one launch are
// those of the kernel's one-step estimate with every staged tile grown to
// the launch's (kernel.TileOf), turned into counts per time step and
// useful lattice update. With T steps and c = Computed / Useful
// (kernel.StepWork.ComputedPerUseful):
//
//   - the staged tiles' copy and the store happen once per launch: their
//     volumes and cycles are divided by T;
//   - the loads of fields that are not staged repeat at every step over the
//     points the step computes: their L1 and L2 volumes and L1 cycles are
//     multiplied by c; global memory sees the first step's points once per
//     launch, the largest region (later steps read within it), so their
//     DRAM volumes are multiplied by First / (T · Points);
//   - the shared-memory reads, the flops and the other instructions of an
//     update happen at every computed point: multiplied by c;
//   - each computed point's next value of the state is written to the
//     second shared buffer, a shared store that costs what the state's
//     mean read costs (its reads' cycles over their number), times c.
//
// A kernel without a state is left as it is.

// stepScales are the factors of the counts of a launch of several time
// steps (the comment above).
type stepScales struct {
	perLaunch float64 // the copy and the store: 1 / T
	perPoint  float64 // every computed point: Computed / Useful
	firstStep float64 // unstaged loads in DRAM: First / (T · Points)
}

// stepScalesOf returns the factors of k's launch l.
func stepScalesOf(k *kernel.Kernel, l kernel.Launch) (stepScales, error) {
	w, err := k.StepWorkOf(l)
	if err != nil {
		return stepScales{}, err
	}
	return stepScales{
		perLaunch: 1 / float64(w.Steps),
		perPoint:  w.ComputedPerUseful(),
		firstStep: float64(w.First) / float64(w.Useful()),
	}, nil
}

// applySteps turns the fields' counts of k's one-step estimate under l
// into counts per time step (the comment above), where k has a state.
func (fs *fieldBasics) applySteps(k *kernel.Kernel, l kernel.Launch, staging footprint.StagingResult) error {
	if k.StateField() == nil {
		return nil
	}
	s, err := stepScalesOf(k, l)
	if err != nil {
		return err
	}
	for i, f := range k.Fields {
		if fs.hasStore[i] {
			scaleField(&fs.store[i], s.perLaunch, s.perLaunch)
		}
		if !fs.hasLoad[i] {
			continue
		}
		if l.Staged(f) {
			scaleField(&fs.load[i], s.perLaunch, s.perLaunch)
			fs.waveOverlapXY[i] *= s.perLaunch
			continue
		}
		scaleField(&fs.load[i], s.perPoint, s.firstStep)
		fs.waveOverlapXY[i] *= s.firstStep
	}
	for _, sf := range staging.Fields {
		f := &fs.load[sf.Field]
		reads := sf.LoadCycles
		if k.Fields[sf.Field].Stage.State {
			reads += sf.LoadCycles / float64(len(k.Fields[sf.Field].Loads)) // the write of the next value
		}
		f.SharedCycles = sf.StoreCycles*s.perLaunch + reads*s.perPoint
	}
	return nil
}

// scaleField multiplies a field's block volumes and L1 cycles by block and
// its wave (DRAM) volumes by wave.
func scaleField(f *FieldBasic, block, wave float64) {
	for _, v := range []*float64{&f.L1Cycles, &f.L1DataPipeCycles, &f.L1TagCycles, &f.L1AllocCycles,
		&f.BlockL1Load, &f.BlockL2Load, &f.BlockL2LoadOverlap, &f.BlockL2Store, &f.BlockWarpL2Load, &f.ResidentL2Load} {
		*v *= block
	}
	for _, v := range []*float64{&f.WaveMemNew, &f.WaveMemOverlapX, &f.WaveMemOverlapY, &f.WaveMemOverlapZ} {
		*v *= wave
	}
}
