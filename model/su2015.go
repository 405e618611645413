package model

import (
	"fmt"
	"math"

	"github.com/polyvol/polyvol/intmath"
)

// Su2015Config describes a 3D stencil run for the three-link traffic model
// of Su et al. 2015 (docs/models.md §2). Every thread updates one point and
// stores it once. Sizes are in bytes unless the name says elements.
type Su2015Config struct {
	Nx, Ny, Nz int // domain points
	Bx, By, Bz int // thread-block shape
	// HaloElems is the halo width per dimension in elements, both sides
	// together (2 for a range-1 stencil).
	HaloElems int
	ElemBytes int
	// XHaloBytes is the granularity of the x-halo loads. The paper states
	// the 128 B line, but its Table 2 value net = 704 needs 256 B (one
	// warp of doubles); with 128 B the formula gives 576.
	XHaloBytes  int
	L2LineBytes int

	AlignedLoads, MisalignedLoads, Stores int // per thread

	SMs             int
	BlocksPerSM     int
	MaxThreadsPerSM int
	Occupancy       float64 // achieved fraction of MaxThreadsPerSM
	MaxOccupancy    float64 // highest achievable fraction, for the imbalance correction
	SMCacheBytes    int     // on-SM (read-only) cache capacity
	L2Bytes         int
	Delta, Epsilon  float64 // miss-rate coefficients δ (SM cache) and ε (L2)

	// Measured achievable bandwidths of the three links, GB/s.
	SMXGBs, L2GBs, GMGBs float64
}

// Su2015Result holds the counts, volumes and times of the model. Counts are
// in elements, volumes in bytes, times in seconds.
type Su2015Result struct {
	LoadsPerThread  int     `json:"nLd"`     // n_ld, misaligned loads counted twice
	NetPerBlock     int     `json:"net"`     // compulsory loads of one block from L2
	SMXMiss         float64 `json:"smxMiss"` // extra L2 loads per net load
	LoadsL2PerBlock float64 `json:"nLdL2"`   // net·(1 + smx_miss)
	Blocks          int     `json:"blocks"`  // thread blocks in the grid
	BlocksPerGroup  int     `json:"blocksPerGroup"`
	Groups          int     `json:"groups"`  // waves of simultaneously active blocks
	WidthY          int     `json:"widthY"`  // y extent a group loads, halo included
	HeightZ         int     `json:"heightZ"` // z extent a group loads, halo included
	LoadsGMNet      int     `json:"nLdGMNet"`
	L2Miss          float64 `json:"l2Miss"`
	LoadsGM         float64 `json:"nLdGM"` // n_ld_GM_net·(1 + l2_miss)
	StoresGM        int     `json:"nStGM"`
	VSMX            float64 `json:"VSMX"`
	VL2             float64 `json:"VL2"`
	VGM             float64 `json:"VGM"`
	// Time is max(V/BW) over the three links; AdjustedTime applies the
	// imbalance correction (1 + 1/groups)/(occupancy/max occupancy).
	Time         float64 `json:"timeS"`
	AdjustedTime float64 `json:"adjustedTimeS"`
	Limiter      string  `json:"limiter"` // "SMX", "L2" or "GM"
}

// Su2015LoadsPerThread counts loads per thread; a misaligned warp load
// touches two 128 B lines and counts twice.
func Su2015LoadsPerThread(aligned, misaligned int) int { return aligned + 2*misaligned }

// Su2015Net is the compulsory number of elements one block loads from L2:
// its points, the y and z halos, and the x halos at xHaloElems per row end.
func Su2015Net(bx, by, bz, haloElems, xHaloElems int) int {
	return bx*by*bz + (bx*bz+bx*by)*haloElems + xHaloElems*by*bz*2
}

// Su2015SMXMiss is the extra fraction of L2 loads caused by on-SM cache
// capacity misses: resident threads' footprint over the cache, times δ.
func Su2015SMXMiss(occupancy float64, maxThreadsPerSM, net, threadsPerBlock, cacheBytes, elemBytes int, delta float64) float64 {
	return occupancy * float64(maxThreadsPerSM) * float64(net) /
		(float64(threadsPerBlock) * float64(cacheBytes) / float64(elemBytes)) * delta
}

// Su2015Groups is the number of groups of simultaneously active blocks.
func Su2015Groups(blocks, blocksPerSM, sms int) int {
	return intmath.CeilDiv(blocks, blocksPerSM*sms)
}

// Su2015WidthY is the y extent, in points, a group of blocks loads:
// the block rows the group covers plus the halo. It is capped at ny + halo,
// the whole y range, which the paper's formula exceeds once a group spans
// whole xy planes (the paper implies but never states this cap).
func Su2015WidthY(by, blocksPerGroup, bx, nx, ny, haloElems int) int {
	return min(by*intmath.CeilDiv(blocksPerGroup*bx, nx)+haloElems, ny+haloElems)
}

// Su2015HeightZ is the z extent, in points, a group of blocks loads: the
// block layers it covers plus the halo, capped likewise at nz + halo.
func Su2015HeightZ(bz, blocksPerGroup, nx, ny, bx, by, nz, haloElems int) int {
	blocksPerPlane := float64(nx*ny) / float64(bx*by)
	return min(bz*int(math.Ceil(float64(blocksPerGroup)/blocksPerPlane))+haloElems, nz+haloElems)
}

// Su2015GroupLoadsNet is the compulsory number of elements a group loads
// from DRAM: full x rows with an L2 line of halo at both ends, over the
// group's y and z extents.
func Su2015GroupLoadsNet(nx, l2LineElems, widthY, heightZ int) int {
	return (nx + l2LineElems*2) * widthY * heightZ
}

// Su2015L2Miss is the extra fraction of DRAM loads caused by L2 capacity
// misses: the group's footprint over the L2 capacity, times ε.
func Su2015L2Miss(groupLoadsNet, elemBytes, l2Bytes int, epsilon float64) float64 {
	return float64(groupLoadsNet) * float64(elemBytes) / float64(l2Bytes) * epsilon
}

// Su2015 evaluates the three-link model for one configuration.
func Su2015(c Su2015Config) (Su2015Result, error) {
	for _, p := range []struct {
		name  string
		value float64
	}{
		{"Nx", float64(c.Nx)}, {"Ny", float64(c.Ny)}, {"Nz", float64(c.Nz)},
		{"Bx", float64(c.Bx)}, {"By", float64(c.By)}, {"Bz", float64(c.Bz)},
		{"ElemBytes", float64(c.ElemBytes)}, {"XHaloBytes", float64(c.XHaloBytes)}, {"L2LineBytes", float64(c.L2LineBytes)},
		{"SMs", float64(c.SMs)}, {"BlocksPerSM", float64(c.BlocksPerSM)}, {"MaxThreadsPerSM", float64(c.MaxThreadsPerSM)},
		{"Occupancy", c.Occupancy}, {"MaxOccupancy", c.MaxOccupancy},
		{"SMCacheBytes", float64(c.SMCacheBytes)}, {"L2Bytes", float64(c.L2Bytes)},
		{"SMXGBs", c.SMXGBs}, {"L2GBs", c.L2GBs}, {"GMGBs", c.GMGBs},
	} {
		if !(p.value > 0) {
			return Su2015Result{}, fmt.Errorf("model: su2015: %s must be positive, got %v", p.name, p.value)
		}
	}
	if c.HaloElems < 0 || c.AlignedLoads < 0 || c.MisalignedLoads < 0 || c.Stores < 0 || c.Delta < 0 || c.Epsilon < 0 {
		return Su2015Result{}, fmt.Errorf("model: su2015: halo, load/store counts, δ and ε must not be negative")
	}
	threadsPerBlock := c.Bx * c.By * c.Bz
	threads := c.Nx * c.Ny * c.Nz
	elem := float64(c.ElemBytes)
	r := Su2015Result{
		LoadsPerThread: Su2015LoadsPerThread(c.AlignedLoads, c.MisalignedLoads),
		NetPerBlock:    Su2015Net(c.Bx, c.By, c.Bz, c.HaloElems, c.XHaloBytes/c.ElemBytes),
		Blocks:         intmath.CeilDiv(c.Nx, c.Bx) * intmath.CeilDiv(c.Ny, c.By) * intmath.CeilDiv(c.Nz, c.Bz),
		BlocksPerGroup: c.BlocksPerSM * c.SMs,
	}
	r.SMXMiss = Su2015SMXMiss(c.Occupancy, c.MaxThreadsPerSM, r.NetPerBlock, threadsPerBlock, c.SMCacheBytes, c.ElemBytes, c.Delta)
	r.LoadsL2PerBlock = float64(r.NetPerBlock) * (1 + r.SMXMiss)
	r.Groups = Su2015Groups(r.Blocks, c.BlocksPerSM, c.SMs)
	r.WidthY = Su2015WidthY(c.By, r.BlocksPerGroup, c.Bx, c.Nx, c.Ny, c.HaloElems)
	r.HeightZ = Su2015HeightZ(c.Bz, r.BlocksPerGroup, c.Nx, c.Ny, c.Bx, c.By, c.Nz, c.HaloElems)
	r.LoadsGMNet = Su2015GroupLoadsNet(c.Nx, c.L2LineBytes/c.ElemBytes, r.WidthY, r.HeightZ)
	r.L2Miss = Su2015L2Miss(r.LoadsGMNet, c.ElemBytes, c.L2Bytes, c.Epsilon)
	r.LoadsGM = float64(r.LoadsGMNet) * (1 + r.L2Miss)
	r.StoresGM = r.BlocksPerGroup * threadsPerBlock * c.Stores

	r.VSMX = float64(threads) * float64(r.LoadsPerThread+c.Stores) * elem
	r.VL2 = float64(r.Blocks) * (r.LoadsL2PerBlock + float64(threadsPerBlock*c.Stores)) * elem
	r.VGM = float64(r.Groups) * (r.LoadsGM + float64(r.StoresGM)) * elem

	const gb = 1e9
	times := []struct {
		link string
		t    float64
	}{{"SMX", r.VSMX / (c.SMXGBs * gb)}, {"L2", r.VL2 / (c.L2GBs * gb)}, {"GM", r.VGM / (c.GMGBs * gb)}}
	for _, lt := range times {
		if lt.t > r.Time {
			r.Time, r.Limiter = lt.t, lt.link
		}
	}
	r.AdjustedTime = r.Time * (1 + 1/float64(r.Groups)) / (c.Occupancy / c.MaxOccupancy)
	return r, nil
}
