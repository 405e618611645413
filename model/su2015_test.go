package model

import (
	"math"
	"testing"
)

// k20Jacobi is the paper's Table 2 configuration: K20 (13 SMs, 48 KB
// read-only cache, 1.25 MB L2, 32 B L2 line), 7-point Jacobi on 256³ doubles,
// block 32×4×1, 16 blocks of 128 threads per SM, δ = ε = 0.01, with the
// 256 B x-halo granularity that reproduces net = 704 (docs/models.md §2.2).
var k20Jacobi = Su2015Config{
	Nx: 256, Ny: 256, Nz: 256, Bx: 32, By: 4, Bz: 1,
	HaloElems: 2, ElemBytes: 8, XHaloBytes: 256, L2LineBytes: 32,
	AlignedLoads: 5, MisalignedLoads: 2, Stores: 1,
	SMs: 13, BlocksPerSM: 16, MaxThreadsPerSM: 2048, Occupancy: 1, MaxOccupancy: 1,
	SMCacheBytes: 48 * 1024, L2Bytes: 1.25 * 1024 * 1024, Delta: 0.01, Epsilon: 0.01,
	SMXGBs: 1215.35, L2GBs: 367.87, GMGBs: 160.88,
}

func TestSu2015Table2(t *testing.T) {
	r, err := Su2015(k20Jacobi)
	if err != nil {
		t.Fatal(err)
	}
	ints := []struct {
		name      string
		got, want int
	}{
		{"n_ld", r.LoadsPerThread, 9}, {"net", r.NetPerBlock, 704}, {"groups", r.Groups, 631},
		{"width_y", r.WidthY, 106}, {"height_z", r.HeightZ, 3},
		{"n_ld_GM net", r.LoadsGMNet, 83952}, {"n_st_GM", r.StoresGM, 26624},
	}
	for _, c := range ints {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	checkPrinted(t, "smx_miss/δ", r.SMXMiss/k20Jacobi.Delta, "1.83")
	checkPrinted(t, "l2_miss/ε", r.L2Miss/k20Jacobi.Epsilon, "0.512")
	checkPrinted(t, "V_SMX GiB", r.VSMX/(1<<30), "1.25")
	// The paper prints V_L2 = 844 MiB and V_GM = 534 MiB, truncated: the
	// model gives 844.9 and 534.4 MiB.
	for _, v := range []struct {
		name      string
		mib, want float64
	}{{"V_L2", r.VL2 / (1 << 20), 844}, {"V_GM", r.VGM / (1 << 20), 534}} {
		if v.mib < v.want || v.mib >= v.want+1 {
			t.Errorf("%s = %.2f MiB, want %v MiB truncated", v.name, v.mib, v.want)
		}
	}
	// DRAM is the slowest link: 560 MB at 160.88 GB/s ≈ 3.48 ms, against
	// 2.41 ms for L2 and 1.10 ms for the SM link.
	if r.Limiter != "GM" {
		t.Errorf("limiter %s, want GM", r.Limiter)
	}
	checkPrinted(t, "time ms", r.Time*1e3, "3.48")
	if want := r.Time * (1 + 1.0/631); math.Abs(r.AdjustedTime-want) > 1e-15 {
		t.Errorf("adjusted time %v, want %v", r.AdjustedTime, want)
	}
}

func TestSu2015LineGranularityCaveat(t *testing.T) {
	// With the 128 B line the paper states, net is 576 (docs/models.md §2.2).
	if got := Su2015Net(32, 4, 1, 2, 128/8); got != 576 {
		t.Errorf("net with 128 B x halo = %d, want 576", got)
	}
}

func TestSu2015WidthYCap(t *testing.T) {
	// On 64³ a group of 208 blocks of 32×4 covers 6.5 xy planes, so the
	// literal width_y = 4·⌈208·32/64⌉ + 2 = 418 exceeds Ny + halo = 66.
	c := k20Jacobi
	c.Nx, c.Ny, c.Nz = 64, 64, 64
	r, err := Su2015(c)
	if err != nil {
		t.Fatal(err)
	}
	if r.WidthY != 66 || r.HeightZ != 1*7+2 {
		t.Errorf("64³: width_y = %d, height_z = %d; want 66 and 9", r.WidthY, r.HeightZ)
	}
}

func TestSu2015RejectsBadInput(t *testing.T) {
	c := k20Jacobi
	c.Bx = 0
	if _, err := Su2015(c); err == nil {
		t.Error("zero block width: no error")
	}
	c = k20Jacobi
	c.Delta = -1
	if _, err := Su2015(c); err == nil {
		t.Error("negative δ: no error")
	}
}
