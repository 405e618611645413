package cudagen

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/polyvol/polyvol/kernel"
)

// Warmup is the number of untimed launches a generated program makes before
// the timed ones; a profiler that skips this many launches of the kernel
// (ncu --launch-skip) sees the first timed launch.
const Warmup = 2

// DefaultReps is the number of timed launches when the program is run
// without an argument.
const DefaultReps = 10

// maxGridYZ is the CUDA limit on gridDim.y and gridDim.z.
const maxGridYZ = 65535

// MaxStaticShared is the most shared memory a block's static __shared__
// arrays may take, in bytes: the CUDA limit without the opt-in to dynamic
// shared memory. The staged tiles of a generated kernel must fit in it.
const MaxStaticShared = 48 << 10

// chainWeight is the constant factor of the chain's fused multiply-adds
// acc = acc·w + v and the operand of its padding. With initial values in
// (0, 1] the fused multiply-adds keep acc below 2 and each addition adds at
// most 1, so no value overflows or becomes denormal whatever the number of
// loads.
const chainWeight = "0.5"

// Program is a generated CUDA program and what it does per lattice update.
type Program struct {
	Source string // the complete .cu file
	// DeviceSource is the program's device code alone: its constants,
	// index helpers and kernels, without the host includes, the CHECK
	// macro and main. A device-only compile (package compiled) reads it
	// with its own prelude, needing no CUDA or ROCm headers.
	DeviceSource string
	Function     string  // name of the __global__ function (contains "polyvol")
	Flops        float64 // floating-point operations per lattice update in the chain: the spec's flops, or one per loaded component where those are fewer
	Loads        int64   // load instructions per lattice update (distinct per thread, divided by λ)
	Stores       int64   // store instructions per thread
	Bytes        int64   // device memory allocated for all fields
	// SharedBytes is the shared memory per block that the launch needs:
	// the spec's shared_bytes plus the staged tiles, which the kernel
	// declares as __shared__ arrays (kernel.StagedSharedBytes).
	SharedBytes int64
}

// ctype is the C type that holds one element of a given size.
type ctype struct {
	name  string // C type
	init  string // identifier part of the init kernel's name
	comps int    // floating-point components (2 for double2)
}

var elementTypes = map[int64]ctype{
	1:  {"signed char", "schar", 1},
	2:  {"short", "short", 1},
	4:  {"float", "float", 1},
	8:  {"double", "double", 1},
	16: {"double2", "double2", 2},
}

// instance is one array of a field (a field of multiplicity m has m).
type instance struct {
	field *fieldPlan
	ident string // C identifier part: f_<ident> is the kernel argument
}

// fieldPlan holds what Generate derived for one field.
type fieldPlan struct {
	f         *kernel.Field
	ident     string
	typ       ctype
	load      bool // the kernel reads the field (its pointer is not const otherwise)
	store     bool
	elements  int64 // elements allocated per instance
	offset    int64 // elements between the allocation and index 0 (pad + α)
	inst      []instance
	loads     []distinct // distinct folded loads, in kernel.FoldAccesses order
	pointUse  [][]int    // per point, per spec load: index into loads
	storeIdx  [][]string // per point, per spec store: C index expression
	storeCond [][]string // per point, per spec store: guard condition, "" if none
	// tile is the field's shared-memory tile where the launch stages it
	// (kernel.Launch.Staged), else nil.
	tile *kernel.Tile
}

// distinct is one folded access, used by the points in mask.
type distinct struct {
	// index is the C expression of the linear index (without α) in thread
	// coordinates; for a staged field, the element offset in the shared
	// tile in the thread's index within its block (tx, ty, tz).
	index string
	// cond is the C condition of a partial access's guards in thread
	// coordinates, "" for an access that applies everywhere.
	cond string
	mask uint64 // bit k: point k uses it
}

// Residency is the device a program is generated for and the occupancy the
// model assumes for the launch there, which the generated kernel asks the
// compiler to allow through __launch_bounds__.
type Residency struct {
	Device string // the device the occupancy is computed for
	// Arch is the device's architecture, the compiler target of the
	// program's build line: "sm_NN" (nvcc -arch) or "gfxNNN" (hipcc
	// --offload-arch, after hipify-perl), as device.Device.Arch.
	Arch        string
	BlocksPerSM int // resident blocks per SM with the spec's registers and the launch's shared memory (kernel.StagedSharedBytes), at least 1
}

// Architecture names the build line accepts: NVIDIA compute capabilities
// (sm_80, sm_90a, sm_100, sm_120) and AMD GPU targets (gfx90a, gfx942,
// gfx1100).
var (
	nvidiaArch = regexp.MustCompile(`^sm_[0-9]{2,3}[a-z]?$`)
	amdArch    = regexp.MustCompile(`^gfx[0-9a-f]{3,4}$`)
)

// compiler returns the compiler that builds the program for r.Arch and the
// comment lines that tell how: nvcc for sm_NN, hipify-perl and hipcc for
// gfxNNN. fn names the executable.
func (r Residency) compiler(fn string) (name, build string, err error) {
	switch {
	case nvidiaArch.MatchString(r.Arch):
		return "nvcc", fmt.Sprintf("// Build: nvcc -O3 -arch=%s -o %s THIS_FILE.cu\n", r.Arch, fn), nil
	case amdArch.MatchString(r.Arch):
		return "hipcc", fmt.Sprintf("// Build: hipify-perl THIS_FILE.cu > THIS_FILE.hip &&\n//        hipcc -O3 --offload-arch=%s -o %s THIS_FILE.hip\n", r.Arch, fn), nil
	}
	return "", "", fmt.Errorf("architecture %q of %s: want sm_NN (an NVIDIA compute capability, nvcc -arch) or gfxNNN (an AMD GPU target, hipcc --offload-arch)", r.Arch, r.Device)
}

// Generate writes the CUDA program of kernel k under launch l for the
// device of r, whose architecture r.Arch its build line targets, its kernel
// declared with __launch_bounds__(threads per block, r.BlocksPerSM): nvcc
// then keeps the registers per thread low enough for r.BlocksPerSM blocks to
// be resident on an SM, the occupancy the model computes from the spec's
// registers, so a measurement runs at least at the modelled occupancy. It
// fails for raw ISL maps that have no index expressions, for launches that
// break the hardware limits, for an architecture that is neither sm_NN nor
// gfxNNN, for grids with more than 65535 blocks in y or
// z, for staged tiles of more than MaxStaticShared bytes, and when an index
// may not fit in 64 bits.
//
// Every thread (x, y, z) covers the lattice points j, 0 ≤ j_i < f_i, that
// the launch's tiling places ((f0·x + j0, f1·y + j1, f2·z + j2) for thread
// folding; kernel.Tiling), each guarded by the valid domain. It loads every
// distinct folded access once (kernel.FoldAccesses), when at least one of the
// points that use it is valid, and stores each point's stores under that
// point's guard; store addresses shared by several points of a thread are
// therefore written once per point, unlike the model's de-duplicated stores.
//
// A field the launch stages (kernel.Launch.Staged) has a __shared__ array
// of its tile (kernel.TileOf) per instance. Each block first copies its
// tile, clipped to what its points in the domain read (kernel.Tile.Box),
// in the field's copy mapping, then synchronises with __syncthreads, which
// every thread of the block reaches: no thread returns early, the points
// outside the domain are skipped by their guards. The field's loads then
// read the shared tile at kernel.Tile.Shared of their index. A field the
// spec stages is allocated to hold the tiles of all blocks, staged or not,
// so that the programs with and without staging allocate alike.
//
// A launch of several time steps (l.Steps) writes the kernel of steps.go;
// it fails where the kernel cannot advance its state so
// (kernel.Kernel.CheckSteps) and for a state or store of several
// instances.
func Generate(k *kernel.Kernel, l kernel.Launch, r Residency) (*Program, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	if l.StepCount() > 1 {
		if err := stepsRefusal(k, l); err != nil {
			return nil, err
		}
	}
	if r.BlocksPerSM < 1 {
		return nil, fmt.Errorf("resident blocks per SM on %s = %d: must be at least 1", r.Device, r.BlocksPerSM)
	}
	if _, _, err := r.compiler(""); err != nil {
		return nil, err
	}
	grid := l.Grid()
	if grid[1] > maxGridYZ || grid[2] > maxGridYZ {
		return nil, fmt.Errorf("grid %d×%d×%d: CUDA allows at most %d blocks in y and z; use a larger block or fold in that dimension", grid[0], grid[1], grid[2], maxGridYZ)
	}
	if grid[0] > math.MaxInt32 {
		return nil, fmt.Errorf("grid x = %d blocks: CUDA allows at most %d", grid[0], math.MaxInt32)
	}
	g := &gen{k: k, l: l, residency: r, points: kernel.FoldOffsets(l.Fold)}
	if len(g.points) > kernel.MaxUnrolledLupsPerThread {
		return nil, fmt.Errorf("fold %d×%d×%d: at most %d lattice points per thread", l.Fold[0], l.Fold[1], l.Fold[2], kernel.MaxUnrolledLupsPerThread)
	}
	if err := g.plan(); err != nil {
		return nil, err
	}
	if err := g.planGuards(); err != nil {
		return nil, err
	}
	var tiles int64
	for _, fp := range g.fields {
		if fp.tile != nil {
			tiles += fp.tile.Bytes * fp.f.Multiplicity
			if l.StepCount() > 1 && fp.f.Stage.State {
				tiles += fp.tile.Bytes // the second buffer of the state
			}
		}
	}
	if tiles > MaxStaticShared {
		return nil, fmt.Errorf("the staged tiles take %d bytes of shared memory per block, more than the %d bytes static __shared__ arrays allow; use a smaller block or fold", tiles, MaxStaticShared)
	}
	return g.write()
}

// planGuards renders, for every point of a thread, the condition that the
// point lies in the domain, in thread coordinates.
func (g *gen) planGuards() error {
	for _, j := range g.points {
		sub, err := g.l.PointExprs(j)
		if err != nil {
			return err
		}
		var conds []string
		for i, e := range sub {
			fl, md := usesDiv(e)
			g.floor, g.mod = g.floor || fl, g.mod || md
			conds = append(conds, fmt.Sprintf("%s < D%d", cExpr(e), i))
		}
		g.guards = append(g.guards, strings.Join(conds, " && "))
	}
	return nil
}

// gen carries the state of one Generate call.
type gen struct {
	k         *kernel.Kernel
	l         kernel.Launch
	residency Residency
	points    [][3]int64
	guards    []string // per point: C condition that it lies in the domain
	fields    []*fieldPlan
	floor     bool // a translated expression calls floordiv
	mod       bool // ... or posmod
	// tid says which of the thread indices tx, ty and tz a staged load's
	// shared offset uses.
	tid [3]bool
	ids map[string]bool
}

// identifier replaces every character of name that may not appear in a C
// identifier by an underscore.
func identifier(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '_'
		}
	}
	return string(b)
}

// uniq returns identifier(name), with a numeric suffix where an earlier call
// already returned that identifier.
func (g *gen) uniq(name string) string {
	base := identifier(name)
	id := base
	for n := 2; g.ids[id]; n++ {
		id = fmt.Sprintf("%s_%d", base, n)
	}
	g.ids[id] = true
	return id
}

// plan translates the accesses and sizes the arrays.
func (g *gen) plan() error {
	g.ids = map[string]bool{}
	if err := g.k.ExpressionsError(); err != nil {
		return err
	}
	for _, f := range g.k.Fields {
		fp := &fieldPlan{f: f, ident: g.uniq(f.Name), typ: elementTypes[f.Element], load: len(f.Loads) > 0, store: len(f.Stores) > 0}
		if fp.typ.name == "" {
			return fmt.Errorf("field %q: element size %d bytes has no C type", f.Name, f.Element)
		}
		for i := range f.Multiplicity {
			id := fp.ident
			if f.Multiplicity > 1 {
				id = g.uniq(fmt.Sprintf("%s_%d", fp.ident, i))
			}
			fp.inst = append(fp.inst, instance{field: fp, ident: id})
		}
		if g.l.Staged(f) {
			t, err := kernel.TileOf(f, g.l)
			if err != nil {
				return err
			}
			fp.tile = &t
		}
		if err := g.size(fp); err != nil {
			return err
		}
		if err := g.planLoads(fp); err != nil {
			return err
		}
		if err := g.planStores(fp); err != nil {
			return err
		}
		g.fields = append(g.fields, fp)
	}
	return nil
}

// size computes the elements to allocate so that every index the guarded
// points touch lies inside the allocation. When the smallest index lies
// before the allocation start, a pad of whole 256-byte units keeps the
// alignment α relative to a 256-byte aligned cudaMalloc pointer.
func (g *gen) size(fp *fieldPlan) error {
	f := fp.f
	lo := kernel.Point{}
	hi := kernel.Point{g.l.Domain[0] - 1, g.l.Domain[1] - 1, g.l.Domain[2] - 1}
	minI, maxI := int64(math.MaxInt64), int64(math.MinInt64)
	for _, a := range append(append([]kernel.Access(nil), f.Loads...), f.Stores...) {
		e, err := f.ElementIndexExpr(a)
		var mn, mx int64
		ok := err == nil
		if ok {
			mn, mx, ok = e.Bounds(lo, hi)
		}
		if !ok {
			return fmt.Errorf("field %q access %s: element indices over domain %d×%d×%d may not fit in 64 bits", f.Name, a, g.l.Domain[0], g.l.Domain[1], g.l.Domain[2])
		}
		minI, maxI = min(minI, mn), max(maxI, mx)
	}
	if f.Stage != nil {
		mn, mx, err := g.tileBounds(f)
		if err != nil {
			return err
		}
		minI, maxI = min(minI, mn), max(maxI, mx)
	}
	unit := 256 / f.Element
	pad := int64(0)
	if minI < 0 {
		pad = (-minI + unit - 1) / unit * unit
	}
	fp.offset = pad + f.Offset
	fp.elements = pad + maxI + 1
	if fp.elements > (math.MaxInt64/f.Element)/f.Multiplicity {
		return fmt.Errorf("field %q: %d elements of %d bytes do not fit in 64-bit sizes", f.Name, fp.elements, f.Element)
	}
	return nil
}

// tileBounds returns the least and greatest element index (α included) of
// the tiles of staged field f over all blocks: per array dimension, from
// the least constant offset to the domain's last point plus the greatest
// one (the tiles are clipped to the domain, kernel.Tile.Box).
func (g *gen) tileBounds(f *kernel.Field) (minI, maxI int64, err error) {
	t, err := kernel.TileOf(f, g.l)
	if err != nil {
		return 0, 0, err
	}
	lo, hi := t.Box(kernel.Point{}, g.l.Domain, true)
	for j, d := range t.Dims {
		if d.Coord >= 0 {
			hi[j] = g.l.Domain[d.Coord] + d.Hi
		}
	}
	strides := [3]int64{1, f.Extent[0], f.Extent[0] * f.Extent[1]}
	minI, maxI = f.Offset, f.Offset
	for j := range 3 {
		minI += strides[j] * lo[j]
		maxI += strides[j] * (hi[j] - 1)
	}
	return minI, maxI, nil
}

// foldAccess returns access a of point j in thread coordinates, the
// point placed by the launch's fold and tiling (kernel.Launch.PointExprs).
func (g *gen) foldAccess(a kernel.Access, j kernel.Point) (kernel.Access, error) {
	return g.l.ThreadAccess(a, j)
}

// index translates the linear element index of the folded access a, without
// the alignment α (the kernel argument already points at base + α).
func (g *gen) index(f *kernel.Field, a kernel.Access) (string, error) {
	e, err := f.ElementIndexExpr(a)
	if err == nil {
		e, err = e.Sub(kernel.Const(f.Offset))
	}
	if err != nil {
		return "", fmt.Errorf("field %q access %s: %w", f.Name, a, err)
	}
	fl, md := usesDiv(e)
	g.floor, g.mod = g.floor || fl, g.mod || md
	return cExpr(e), nil
}

// planLoads finds the distinct folded loads of a field and which points use
// them, in the order of kernel.FoldAccesses (point j with x fastest, then
// the spec's order).
func (g *gen) planLoads(fp *fieldPlan) error {
	var seen []kernel.Access
	for k, j := range g.points {
		var use []int
		for _, a := range fp.f.Loads {
			fa, err := g.foldAccess(a, j)
			if err != nil {
				return fmt.Errorf("field %q: %w", fp.f.Name, err)
			}
			cond, err := g.guardCond(fp.f, a, fa)
			if err != nil {
				return err
			}
			d := -1
			for i, s := range seen {
				if s.Equal(fa) && fp.loads[i].cond == cond {
					d = i
					break
				}
			}
			if d < 0 {
				idx, err := g.index(fp.f, fa)
				if fp.tile != nil {
					idx, err = g.sharedIndex(fp, fa)
				}
				if err != nil {
					return err
				}
				d = len(seen)
				seen = append(seen, fa)
				fp.loads = append(fp.loads, distinct{index: idx, cond: cond})
			}
			fp.loads[d].mask |= 1 << k
			use = append(use, d)
		}
		fp.pointUse = append(fp.pointUse, use)
	}
	return nil
}

// sharedIndex translates the shared-tile element offset of the folded load
// fa of staged field fp (kernel.Tile.Shared of its index, relative to the
// tile of the thread's block) into the thread's index within its block,
// tx, ty and tz. A block's points lie at the same offsets from its first
// point whatever the block (kernel.Launch.PointCoord), so the offset is
// that of block 0, whose tile starts at the loads' least constants: on the
// box of thread indices the tiling's floor and modulo terms are affine.
func (g *gen) sharedIndex(fp *fieldPlan, fa kernel.Access) (string, error) {
	e, err := sharedOffset(*fp.tile, fa, g.l.Block)
	if err != nil {
		return "", fmt.Errorf("field %q access %s: %w", fp.f.Name, fa, err)
	}
	coef, _, _ := e.Terms()
	for i, c := range coef {
		g.tid[i] = g.tid[i] || c != 0
	}
	fl, md := usesDiv(e)
	g.floor, g.mod = g.floor || fl, g.mod || md
	return cExprOver(e, threadIndex), nil
}

// sharedOffset returns Σ_j stride_j·(fa_j − Lo_j), the shared element
// offset of the folded load fa in tile t, on the thread indices of a block
// of the given size.
func sharedOffset(t kernel.Tile, fa kernel.Access, block [3]int64) (kernel.Expr, error) {
	strides := t.Strides()
	sum := kernel.Const(0)
	for j, e := range fa.Index {
		d, err := e.Sub(kernel.Const(t.Dims[j].Lo))
		if err == nil {
			d, err = d.Scale(strides[j])
		}
		if err == nil {
			sum, err = sum.Add(d)
		}
		if err != nil {
			return kernel.Expr{}, err
		}
	}
	return sum.OnBox(kernel.Point{}, kernel.Point{block[0] - 1, block[1] - 1, block[2] - 1})
}

// planStores translates the stores of every point of a thread.
func (g *gen) planStores(fp *fieldPlan) error {
	for _, j := range g.points {
		var idx, conds []string
		for _, a := range fp.f.Stores {
			fa, err := g.foldAccess(a, j)
			if err != nil {
				return fmt.Errorf("field %q: %w", fp.f.Name, err)
			}
			s, err := g.index(fp.f, fa)
			if err != nil {
				return err
			}
			cond, err := g.guardCond(fp.f, a, fa)
			if err != nil {
				return err
			}
			idx, conds = append(idx, s), append(conds, cond)
		}
		fp.storeIdx = append(fp.storeIdx, idx)
		fp.storeCond = append(fp.storeCond, conds)
	}
	return nil
}

// guardCond renders the guards of a partial access a (fa in thread
// coordinates) as a C condition, or "" when a applies on the whole domain.
func (g *gen) guardCond(f *kernel.Field, a, fa kernel.Access) (string, error) {
	_, partial, err := a.Partial(g.l.Domain)
	if err != nil {
		return "", fmt.Errorf("field %q access %s: %w", f.Name, a.Text, err)
	}
	if !partial {
		return "", nil
	}
	var conds []string
	for _, e := range fa.Guards {
		fl, md := usesDiv(e)
		g.floor, g.mod = g.floor || fl, g.mod || md
		conds = append(conds, cExpr(e)+" >= 0")
	}
	return strings.Join(conds, " && "), nil
}
