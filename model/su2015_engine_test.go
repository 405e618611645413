package model

import (
	"testing"

	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/geometry"
	"github.com/polyvol/polyvol/isl"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
	"github.com/polyvol/polyvol/sets"
)

// jacobi7 is the 7-point Jacobi stencil of Su et al.'s Table 2 on 256³.
const jacobi7 = `name: jacobi7
domain: [256, 256, 256]
fields:
  - name: A
    element: 8
    load: [[x, y, z], [x-1, y, z], [x+1, y, z], [x, y-1, z], [x, y+1, z], [x, y, z-1], [x, y, z+1]]
  - name: B
    element: 8
    store: [[x, y, z]]
`

// TestSu2015CountsThroughEngine recomputes the compulsory counts of Su et
// al.'s Table 2 (K20, 7-point Jacobi on 256³, block 32×4×1, 13 SMs × 16
// blocks per group) with polyvol's own footprints instead of the paper's
// stencil formulas:
//   - net per block (704 elements): the block's footprint at element
//     granularity without the x halo (the paper counts y and z halos per
//     element), plus its x halo at the paper's 256 B granularity, i.e. the
//     extra 256 B chunks of the x±1 accesses over the centre, × 32 elements;
//   - n_ld_GM net per group (83952) and n_st_GM (26624): a group of 208
//     consecutive blocks at the start of a block layer, in the
//     multi-dimensional space with the 32 B L2 line (x in 4-element chunks,
//     y and z per element), loads × 4 elements and stores per element. The
//     paper's (Nx + 2·4)·width_y·height_z is the bounding box of the group's
//     footprint, which ISL's box hull of the footprint reproduces; the exact
//     footprint is smaller, because the z±1 planes hold no x or y halo:
//     4·(66·104 + 2·64 + 2·64·104) = 81216 elements.
//
// The miss terms (smx_miss, l2_miss) are the paper's empirical corrections,
// not footprints, so the engine does not express them.
func TestSu2015CountsThroughEngine(t *testing.T) {
	k, err := kernel.Parse([]byte(jacobi7), "jacobi7.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := isl.NewCtx()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	l := k.NewLaunch([3]int64{32, 4, 1}, kernel.NoFold)
	g := geometry.NewGeometry(l)
	e := &footprint.Engine{Mapper: &geometry.AccessMapper{Kernel: k, Geom: g}}
	block := []lattice.Box{g.BlockThreads([3]int64{3, 20, 100})}

	// The y/z part counts per element: drop the x±1 accesses.
	yz := *k.Fields[0]
	yz.Loads = append([]kernel.Access{yz.Loads[0]}, yz.Loads[3:]...)
	centre := *k.Fields[0]
	centre.Loads = yz.Loads[:1]
	count := func(f *kernel.Field, gran int64, space geometry.AddressSpace, threads []lattice.Box) int64 {
		one := *k
		one.Fields = []*kernel.Field{f}
		e1 := &footprint.Engine{Mapper: &geometry.AccessMapper{Kernel: &one, Geom: g}}
		n, err := e1.CountGranules(footprint.Request{Gran: gran, Space: space, Store: len(f.Stores) > 0}, threads)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	perElement := count(&yz, 8, geometry.LinearSpace, block)
	xChunks := count(k.Fields[0], 256, geometry.MultiDimSpace, block) - count(&yz, 256, geometry.MultiDimSpace, block)
	if net := perElement + 32*xChunks; net != 704 {
		t.Errorf("net per block = %d + 32·%d = %d, Table 2 gives 704", perElement, xChunks, net)
	}

	group := g.BlockRange(512*100, 512*100+13*16)
	var threads []lattice.Box
	for _, b := range group {
		threads = append(threads, g.ThreadBox(b))
	}
	if n := 4 * count(k.Fields[0], 32, geometry.MultiDimSpace, threads); n != 4*(66*104+2*64+2*64*104) {
		t.Errorf("exact group load footprint = %d elements, want %d", n, 4*(66*104+2*64+2*64*104))
	}
	sc := ctx.NewScope()
	defer sc.Free()
	fp, err := sets.Footprint(sc, e.Mapper, 0, false, 32, geometry.MultiDimSpace, threads)
	if err != nil {
		t.Fatal(err)
	}
	hull, err := fp.BoundingBox()
	if err != nil {
		t.Fatal(err)
	}
	boxed, err := sets.CountPoints(hull)
	if err != nil {
		t.Fatal(err)
	}
	if n := 4 * boxed; n != 83952 {
		t.Errorf("n_ld_GM net per group (bounding box) = %d, Table 2 gives 83952", n)
	}
	if n := count(k.Fields[1], 8, geometry.MultiDimSpace, threads); n != 26624 {
		t.Errorf("n_st_GM per group = %d, Table 2 gives 26624", n)
	}
}
