package footprint

import (
	"encoding/binary"

	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/lattice"
)

// truncatedGrid returns the reference's sample grid t_i = min(8, g_i) in
// blocks (docs/metrics.md §2.5).
func truncatedGrid(l kernel.Launch) [3]int64 {
	g := l.Grid()
	for i := range g {
		g[i] = min(referenceSampleBlocks, g[i])
	}
	return g
}

// ReferenceSampleBlocks lists the block indices of the reference's sample,
// the truncated grid t_i = min(8, g_i) at the origin, x fastest
// (docs/metrics.md §2.5).
func ReferenceSampleBlocks(l kernel.Launch) [][3]int64 {
	return lattice.Box{Hi: truncatedGrid(l)}.Points()
}

// warpShape returns ω(S), the box of threads the reference takes as one warp
// of S threads in a block of size b (docs/metrics.md §2.6).
func warpShape(size int, b [3]int64) [3]int64 {
	s := int64(size)
	x := min(s, b[0])
	y := min(b[1], max(1, s/b[0]))
	z := min(b[2], max(1, s/b[0]/b[1]))
	return [3]int64{x, y, z}
}

// lanePattern is the lanes of one kind of warp: each lane's thread offset
// from the warp's base thread, in lane order.
type lanePattern struct {
	offsets []kernel.Point
	lo, hi  kernel.Point // smallest and largest offset in each dimension
}

// newLanePattern returns the pattern of the lane offsets, in lane order.
func newLanePattern(offsets []kernel.Point) *lanePattern {
	p := &lanePattern{offsets: offsets, lo: offsets[0], hi: offsets[0]}
	for _, o := range offsets {
		for i := range o {
			p.lo[i] = min(p.lo[i], o[i])
			p.hi[i] = max(p.hi[i], o[i])
		}
	}
	return p
}

// warpTile is one warp: its lanes are the threads base + offset.
type warpTile struct {
	base  kernel.Point
	lanes *lanePattern
	// weight is the number of warps this tile stands for: 1, or the blocks
	// of a class of equivalent sample blocks (see blockClasses).
	weight int64
}

// boxTiles is the reference's Tiling(ω, n) (docs/metrics.md §2.7): tiles k
// in [0,n) of the box shape ω at thread k·ω, lanes listed with y outermost,
// x in the middle and z innermost.
func boxTiles(shape, n [3]int64) []warpTile {
	var offsets []kernel.Point
	for y := range shape[1] {
		for x := range shape[0] {
			for z := range shape[2] {
				offsets = append(offsets, kernel.Point{x, y, z})
			}
		}
	}
	lanes := newLanePattern(offsets)
	tiles := make([]warpTile, 0, n[0]*n[1]*n[2])
	for k2 := range n[2] {
		for k1 := range n[1] {
			for k0 := range n[0] {
				tiles = append(tiles, warpTile{kernel.Point{k0 * shape[0], k1 * shape[1], k2 * shape[2]}, lanes, 1})
			}
		}
	}
	return tiles
}

// hardwareWarps returns the warps of size threads of every block in blocks:
// consecutive linear thread ids, x fastest, the last warp of a block holding
// the remainder (docs/metrics.md §8 item 5). Lanes are in thread-id order.
// weights, when not nil, gives each block's weight.
func hardwareWarps(block [3]int64, size int, blocks [][3]int64, weights []int64) []warpTile {
	threads := block[0] * block[1] * block[2]
	// Warps whose lanes are translates of each other share one pattern of
	// offsets from their first lane, so that memoised measures carry over.
	type warpOf struct {
		first   kernel.Point
		pattern *lanePattern
	}
	shapes := map[string]*lanePattern{}
	var warps []warpOf
	for first := int64(0); first < threads; first += int64(size) {
		var offsets []kernel.Point
		var key []byte
		origin := kernel.Point{first % block[0], first / block[0] % block[1], first / (block[0] * block[1])}
		for tid := first; tid < min(threads, first+int64(size)); tid++ {
			o := kernel.Point{tid%block[0] - origin[0], tid/block[0]%block[1] - origin[1], tid/(block[0]*block[1]) - origin[2]}
			offsets = append(offsets, o)
			key = binary.AppendVarint(binary.AppendVarint(binary.AppendVarint(key, o[0]), o[1]), o[2])
		}
		p, ok := shapes[string(key)]
		if !ok {
			p = newLanePattern(offsets)
			shapes[string(key)] = p
		}
		warps = append(warps, warpOf{origin, p})
	}
	var tiles []warpTile
	for bi, b := range blocks {
		w := int64(1)
		if weights != nil {
			w = weights[bi]
		}
		for _, wp := range warps {
			base := kernel.Point{b[0]*block[0] + wp.first[0], b[1]*block[1] + wp.first[1], b[2]*block[2] + wp.first[2]}
			tiles = append(tiles, warpTile{base, wp.pattern, w})
		}
	}
	return tiles
}
