package model

import (
	"fmt"
	"sync"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
	"github.com/polyvol/polyvol/waves"
)

// Time steps per launch (kernel.StepWork): the counts of one launch are
// those of the kernel's one-step estimate with every staged tile grown to
// the launch's (kernel.TileOf), turned into counts per time step and
// useful lattice update. With T steps, c = Computed / Useful
// (kernel.StepWork.ComputedPerUseful) and i the lanes that the block's
// warps issue over the steps per lane of the block's own updates
// (kernel.StepWork.IssuedPerUseful, at the device's warp size):
//
//   - the staged tiles' copy and the store happen once per launch: their
//     volumes and cycles are divided by T;
//   - the loads of fields that are not staged repeat at every step t over
//     the step's region (kernel.StepRegion, the block's points grown by
//     T − t halos), and are counted there, per launch and divided by T:
//     their L1 load is the sum over the steps of the warps' sectors of the
//     step's region, each counted as a kernel of its own (one block whose
//     domain is the region, clipped to the domain), over the sample
//     blocks; their L2→L1 load is the block's distinct sectors of the
//     first step's region, which holds every later one; their DRAM
//     footprint, and its overlaps with earlier waves, are those of the
//     wave's distinct granules of its blocks' first-step regions,
//     overlaps between neighbours' regions counted once. The first step's
//     regions are counted as the block's own points are, with each load
//     copied at the offsets that cover the region (firstStepLoads). These
//     are the simulator's counts with infinite caches and one block per
//     SM. Their L1 cycles and the block-level reuse terms of finite caches
//     (the previous blocks' overlap, the warps' own sectors, the grid
//     resident in L1) are the one-step ones multiplied by c;
//   - the shared-memory reads, the flops and the other instructions of an
//     update happen at every computed point: the flops per update (and
//     the latency models' chain of dependent FP instructions, which they
//     give) are multiplied by c. A warp issues them for all its lanes where one of
//     them is at a point of the step's region, and a region that is not a
//     multiple of the block leaves lanes idle at its last fold points;
//     the idle lanes hold the issue slot, the FP pipe and the shared
//     memory's cycle as the active ones do, so the instruction mix, the
//     floating-point instructions of the flops bound and the shared reads'
//     cycles are multiplied by i. The one-step counts charge the block's
//     own warps as they are (the issue bound divides by their active
//     lanes), which i keeps: it is 1 for one step, c where every step's
//     warps are full;
//   - each computed point's next value of the state is written to the
//     second shared buffer, a shared store that costs what the state's
//     mean read costs (its reads' cycles over their number), times i.
//
// A kernel without a state is left as it is.

// stepScales are the factors of the counts of a launch of several time
// steps (the comment above).
type stepScales struct {
	perLaunch float64 // the copy and the store: 1 / T
	perPoint  float64 // every computed point: Computed / Useful
	perLane   float64 // every issued lane of the steps' warps: IssuedPerUseful
}

// stepScalesOf returns the factors of k's launch l on dev.
func stepScalesOf(k *kernel.Kernel, l kernel.Launch, dev *device.Device) (stepScales, error) {
	w, err := k.StepWorkOf(l)
	if err != nil {
		return stepScales{}, err
	}
	return stepScales{perLaunch: 1 / float64(w.Steps), perPoint: w.ComputedPerUseful(), perLane: w.IssuedPerUseful(int64(dev.WarpSize))}, nil
}

// stepCounting is what the counts of the unstaged fields' loads over the
// steps' regions need: the estimate's engine (over k's global view), its
// method, representative wave and sample blocks (as boxes of threads and
// as block indices), and the wave's factor q (Basic.QWaveFactor).
type stepCounting struct {
	eng       *footprint.Engine
	k         *kernel.Kernel
	l         kernel.Launch
	dev       *device.Device
	m         Method
	shape     waves.Shape
	sample    []lattice.Box
	sampleIdx [][3]int64
	q         float64
	regions   *StepRegionCache
}

// StepRegionCache memoises the L1 load of the step regions of unstaged
// fields (stepL1Load) over the estimates of one sweep. A region's count
// depends on the kernel, the device, the warp rules, the field, the
// block, the tiling and the region itself (its size, fold, clipping and
// addresses modulo the largest L1 granule: regionKey), not on the launch's
// number of steps: a launch of T steps counts the regions grown by 0 to
// T − 1 halos, so a sweep over T = 1…10 counts ten regions per block shape
// where counting them afresh would take 55. The kernels it is asked about
// must not change while it is in use. It is safe for concurrent use.
type StepRegionCache struct {
	mu   sync.Mutex
	done map[stepRegionKey]float64
}

// stepRegionKey is everything a step region's L1 load depends on.
type stepRegionKey struct {
	k      *kernel.Kernel
	dev    *device.Device
	rules  footprint.WarpRules
	field  int
	block  [3]int64
	tiling kernel.Tiling
	region string // regionKey
}

// NewStepRegionCache returns an empty cache.
func NewStepRegionCache() *StepRegionCache {
	return &StepRegionCache{done: map[stepRegionKey]float64{}}
}

// load returns the L1 load of key's region, calling count once per
// distinct key.
func (c *StepRegionCache) load(key stepRegionKey, count func() (float64, error)) (float64, error) {
	c.mu.Lock()
	v, ok := c.done[key]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := count()
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	c.done[key] = v
	c.mu.Unlock()
	return v, nil
}

// applySteps turns the fields' counts of the one-step estimate into counts
// per time step (the comment above), where the kernel has a state.
func (fs *fieldBasics) applySteps(c stepCounting, staging footprint.StagingResult) error {
	k, l := c.k, c.l
	if k.StateField() == nil {
		return nil
	}
	s, err := stepScalesOf(k, l, c.dev)
	if err != nil {
		return err
	}
	var unstaged []int
	for i, f := range k.Fields {
		if fs.hasStore[i] {
			scaleField(&fs.store[i], s.perLaunch)
			scaleWave(&fs.store[i], s.perLaunch)
		}
		if !fs.hasLoad[i] {
			continue
		}
		if l.Staged(f) {
			scaleField(&fs.load[i], s.perLaunch)
			scaleWave(&fs.load[i], s.perLaunch)
			fs.waveOverlapXY[i] *= s.perLaunch
			continue
		}
		scaleField(&fs.load[i], s.perPoint)
		unstaged = append(unstaged, i)
	}
	if len(unstaged) > 0 && l.StepCount() > 1 {
		if err := fs.countStepLoads(c, unstaged, s.perLaunch); err != nil {
			return err
		}
	}
	for _, sf := range staging.Fields {
		f := &fs.load[sf.Field]
		reads := sf.LoadCycles
		if k.Fields[sf.Field].Stage.State {
			reads += sf.LoadCycles / float64(len(k.Fields[sf.Field].Loads)) // the write of the next value
		}
		f.SharedCycles = sf.StoreCycles*s.perLaunch + reads*s.perLane
	}
	return nil
}

// countStepLoads sets the L1, L2→L1 and DRAM volumes of the loads of the
// unstaged fields (indices in k's fields) over a launch's steps, times
// perLaunch (the comment above).
func (fs *fieldBasics) countStepLoads(c stepCounting, unstaged []int, perLaunch float64) error {
	halo, err := kernel.StepHalo(c.k.StateField())
	if err != nil {
		return err
	}
	for _, fi := range unstaged {
		v, err := stepL1Load(c, fi, halo)
		if err != nil {
			return err
		}
		fs.load[fi].BlockL1Load = v * perLaunch
	}
	grown, err := firstStepLoads(c.eng.Mapper.Kernel, c.k, c.l, halo)
	if err != nil {
		return err
	}
	eng := &footprint.Engine{Mapper: &geometry.AccessMapper{Kernel: grown, Geom: c.eng.Mapper.Geom, PointGuard: c.eng.Mapper.PointGuard}, Budget: c.eng.Budget, Counts: c.eng.Counts}
	vols, err := eng.BlockVolumes(c.dev.Memory(), c.sample)
	if err != nil {
		return err
	}
	for _, v := range vols {
		mult := float64(c.k.Fields[v.Field].Multiplicity)
		fs.load[v.Field].BlockL2Load = float64(c.dev.L1FetchBytes) * mult * v.Sectors * perLaunch
	}
	wave, err := waves.CountVolumes(eng, c.shape, c.m.WaveSpace, func(bool) int64 { return c.dev.DRAMFetchBytes })
	if err != nil {
		return err
	}
	for _, v := range wave {
		bytes := float64(v.Gran*v.Multiplicity) * perLaunch / c.q
		f := &fs.load[v.Field]
		f.WaveMemNew = float64(v.New) * bytes
		f.WaveMemOverlapX = float64(v.OvX) * bytes
		f.WaveMemOverlapY = float64(v.OvY) * bytes
		f.WaveMemOverlapZ = float64(v.OvZ) * bytes
		fs.waveOverlapXY[v.Field] = float64(v.OvX+v.OvY) * bytes
	}
	return nil
}

// firstStepLoads returns global, the global view of k under l, with only
// the loads of k's unstaged fields, each copied at the offsets that cover
// the first step's region of a block (its points grown by T − 1 halos)
// from the block's own points (kernel.ShiftAccess): from the least offset
// in steps of the block's extent, or of the narrower edge block's where
// the domain leaves one, to the greatest. A block's loads of these copies
// are its loads over its first step's region, clipped to the domain.
func firstStepLoads(global, k *kernel.Kernel, l kernel.Launch, halo [3][2]int64) (*kernel.Kernel, error) {
	grow := l.StepCount() - 1
	var offsets [3][]int64
	for c := range 3 {
		offsets[c] = kernel.CoverOffsets(-grow*halo[c][0], grow*halo[c][1], kernel.CoverStep(l.Block[c]*l.Fold[c], l.Domain[c]))
	}
	out := *global
	out.Fields = make([]*kernel.Field, len(global.Fields))
	for fi, f := range global.Fields {
		nf := *f
		nf.Loads, nf.Stores = nil, nil
		if !l.Staged(k.Fields[fi]) {
			for _, a := range f.Loads {
				for _, d2 := range offsets[2] {
					for _, d1 := range offsets[1] {
						for _, d0 := range offsets[0] {
							s, err := kernel.ShiftAccess(a, [3]int64{d0, d1, d2}, k.Domain, k.Domain)
							if err != nil {
								return nil, fmt.Errorf("field %q: %w", f.Name, err)
							}
							nf.Loads = append(nf.Loads, s)
						}
					}
				}
			}
		}
		out.Fields[fi] = &nf
	}
	return &out, nil
}

// stepL1Load returns the L1 load of unstaged field fi over the launch's
// steps, summed over the steps and averaged over the sample blocks: for
// each step and block, the warps' sectors of the step's region (clipped to
// the domain) counted as a kernel of one block (stepRegionKernel). Regions
// alike (the same size, fold, clipping and addresses modulo the device's
// largest L1 granule, where the loads are affine) are counted once, in
// c.regions.
func stepL1Load(c stepCounting, fi int, halo [3][2]int64) (float64, error) {
	k, l := c.k, c.l
	f := k.Fields[fi]
	steps := l.StepCount()
	gran := max(c.dev.L1FetchBytes, c.dev.L1AllocBytes)
	var sum float64
	for t := int64(1); t <= steps; t++ {
		r := kernel.StepRegionOf(l, halo, steps-t)
		for _, b := range c.sampleIdx {
			var first [3]int64
			inside := true
			for d := range 3 {
				first[d] = b[d]*l.Block[d]*l.Fold[d] + r.Lo[d]
				inside = inside && first[d] < k.Domain[d] && first[d]+r.Size[d] > 0
			}
			if !inside {
				continue
			}
			key := stepRegionKey{k: k, dev: c.dev, rules: c.m.Warp, field: fi, block: l.Block, tiling: l.Tiling,
				region: regionKey(f, r, first, k.Domain, gran)}
			v, err := c.regions.load(key, func() (float64, error) {
				rk, rl, err := stepRegionKernel(k, l, f, r, first)
				if err != nil {
					return 0, err
				}
				lists, err := footprint.Instructions(rk, rl, c.dev.Memory(), c.m.Warp.Fusion)
				if err != nil {
					return 0, err
				}
				w, err := footprint.WarpVolumesOf(lists, rl, c.dev.Memory(), c.m.Warp, [][3]int64{{}}, c.eng.Budget)
				if err != nil {
					return 0, err
				}
				return w.BlockL1Load, nil
			})
			if err != nil {
				return 0, err
			}
			sum += v
		}
	}
	return sum / float64(len(c.sampleIdx)), nil
}

// regionKey identifies step region r that starts at lattice point first,
// for field f on domain d: the region's size and fold, its points inside
// the domain, and where f's loads are affine the byte address of each at
// the region's first point modulo gran (a shift by whole granules leaves
// every warp's sectors as many), else the first point itself.
func regionKey(f *kernel.Field, r kernel.StepRegion, first, d [3]int64, gran int64) string {
	var lo, hi [3]int64
	for c := range 3 {
		lo[c], hi[c] = max(0, -first[c]), min(r.Size[c], d[c]-first[c])
	}
	key := fmt.Sprint(r.Size, r.Fold, lo, hi)
	for _, a := range f.Loads {
		var shift int64
		for j := range 3 {
			coef, _, ok := a.Index[j].Linear()
			if !ok {
				return fmt.Sprint(key, first)
			}
			stride := int64(1)
			for i := range j {
				stride *= f.Extent[i]
			}
			shift += (coef[0]*first[0] + coef[1]*first[1] + coef[2]*first[2]) * stride
		}
		key += fmt.Sprint(" ", ((shift*f.Element)%gran+gran)%gran)
	}
	return key
}

// stepRegionKernel returns field f's loads over step region r of the block
// whose region starts at lattice point first, as a kernel and launch of
// their own: a domain of the region, whose point p is k's first + p, one
// block of l's size covering it with the region's fold in l's tiling, and
// the points outside k's domain left out by the loads' guards.
func stepRegionKernel(k *kernel.Kernel, l kernel.Launch, f *kernel.Field, r kernel.StepRegion, first [3]int64) (*kernel.Kernel, kernel.Launch, error) {
	nf := *f
	nf.Loads, nf.Stores, nf.Stage = nil, nil, nil
	for _, a := range f.Loads {
		s, err := kernel.ShiftAccess(a, first, r.Size, k.Domain)
		if err != nil {
			return nil, kernel.Launch{}, fmt.Errorf("field %q: %w", f.Name, err)
		}
		nf.Loads = append(nf.Loads, s)
	}
	rk := *k
	rk.Domain, rk.State, rk.Steps, rk.Fields = r.Size, "", 0, []*kernel.Field{&nf}
	return &rk, kernel.Launch{Block: l.Block, Fold: r.Fold, Domain: r.Size, Tiling: l.Tiling}, nil
}

// scaleField multiplies a field's block volumes and L1 cycles by factor.
func scaleField(f *FieldBasic, factor float64) {
	for _, v := range []*float64{&f.L1Cycles, &f.L1DataPipeCycles, &f.L1TagCycles, &f.L1AllocCycles,
		&f.BlockL1Load, &f.BlockL2Load, &f.BlockL2LoadOverlap, &f.BlockL2Store, &f.BlockWarpL2Load, &f.ResidentL2Load} {
		*v *= factor
	}
}

// scaleWave multiplies a field's wave (DRAM) volumes by factor.
func scaleWave(f *FieldBasic, factor float64) {
	for _, v := range []*float64{&f.WaveMemNew, &f.WaveMemOverlapX, &f.WaveMemOverlapY, &f.WaveMemOverlapZ} {
		*v *= factor
	}
}
