package sim

import (
	"fmt"

	"github.com/polyvol/polyvol/kernel"
)

// Time steps per launch (kernel.StepWork). A launch of T > 1 steps runs,
// after the copy of the staged tiles (grown by kernel.TileOf), T steps:
// step t = 1 … T computes the block's points grown by T − t halos of the
// state (kernel.StepRegion: the threads take them as the launch's tiling
// takes the block's points), each point's loads of every field in spec
// order (the staged fields' from their tiles, the others' from global
// memory, at every step) followed by the shared store of the state's next
// value into the second buffer. A lane takes part where its point lies in
// the region and in the domain. As among the launch's own points, a load
// whose thread-coordinate access equals one issued for an earlier point of
// the step is not issued again. The stores of the launch's own points
// follow the last step, once.

// appendSteps appends the instructions of the launch's time steps to the
// program.
func (tr *tracer) appendSteps() error {
	state := tr.k.StateField()
	halo, err := kernel.StepHalo(state)
	if err != nil {
		return err
	}
	steps := tr.launch.StepCount()
	for t := int64(1); t <= steps; t++ {
		span := kernel.StepRegionOf(tr.launch, halo, steps-t)
		spread := tr.launch // the step's points as a launch spreads its own
		spread.Fold = span.Fold
		issued := map[string]int{} // thread-coordinate access per region → program index
		for _, j := range foldPoints(span.Fold) {
			for r, fi := range tr.regionField {
				f := tr.k.Fields[fi]
				kind := globalAccess
				if tr.stages[fi] != nil {
					kind = sharedLoad
				}
				for _, a := range f.Loads {
					ta, err := spread.ThreadAccess(a, j)
					if err != nil {
						return fmt.Errorf("sim: field %q: access %s: %w", f.Name, a, err)
					}
					key := fmt.Sprintf("%d|%s", r, ta)
					if at, ok := issued[key]; ok {
						tr.program[at].uses = append(tr.program[at].uses, use{j, a.Guards})
						continue
					}
					issued[key] = len(tr.program)
					tr.program = append(tr.program, instruction{kind: kind, field: fi, region: r, width: f.Element,
						point: j, span: &span, access: a, uses: []use{{j, a.Guards}}})
				}
			}
			for r, fi := range tr.regionField {
				if f := tr.k.Fields[fi]; f == state {
					tr.program = append(tr.program, instruction{kind: sharedStore, field: fi, region: r, width: f.Element,
						point: j, span: &span, uses: []use{{j, nil}}})
				}
			}
		}
	}
	return nil
}
