package sim_test

import (
	"fmt"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/sim"
)

// A streaming copy moves each double once at every level: 8 B per lattice
// update loaded and 8 B stored.
func ExampleRun() {
	k, _ := kernel.ParseExample("vec-copy")
	d, _ := device.Lookup("A100-40GB")
	l := kernel.Launch{Block: [3]int64{256, 1, 1}, Fold: kernel.NoFold, Domain: [3]int64{1 << 16, 1, 1}}
	r, err := sim.Run(k, l, sim.Config{Device: d, SplitL2: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := r.Total
	fmt.Printf("L1Load %g, L2Load %g, L2Store %g, memLoad %g, memStore %g B/Lup\n", t.L1Load, t.L2Load, t.L2Store, t.MemLoad, t.MemStore)
	// Output: L1Load 8, L2Load 8, L2Store 8, memLoad 8, memStore 8 B/Lup
}
