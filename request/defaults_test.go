package request

import (
	"context"
	"testing"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/model"
)

// TestDefaultRequestsAreValid checks that the default requests pass their
// own checks, to the values the command line's help states: method exact,
// the overlap model, a 160 MB memory bound; LRU caches and lockstep warps;
// 5000 configurations.
func TestDefaultRequestsAreValid(t *testing.T) {
	est := DefaultEstimate()
	est.Instructions.Mode = InstructionsCounted // the default mode depends on the environment
	opt, err := est.Options(context.Background())
	if err != nil || opt.Method != model.MethodExact || opt.Model != model.ModelOverlap || opt.MemoryBound != 160<<20 || opt.WorkBound < 1 {
		t.Errorf("DefaultEstimate().Options() = %+v, %v; want method exact, model overlap, 160 MB", opt, err)
	}
	dev, err := device.Lookup(DefaultDevice)
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSimulate()
	s.Device = dev
	_, rec, err := s.Config()
	want := SimConfig{L1Bytes: dev.L1Bytes, L2Bytes: dev.L2Bytes, L1Policy: "lru", L2Policy: "lru", Schedule: "lockstep"}
	if err != nil || rec != want {
		t.Errorf("DefaultSimulate().Config() records %+v, %v; want %+v", rec, err, want)
	}
	if n := DefaultExplore().MaxConfigurations; n != 5000 {
		t.Errorf("DefaultExplore() allows %d configurations, want the 5000 of --max-configurations' help", n)
	}
}
