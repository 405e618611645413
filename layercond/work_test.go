package layercond

import (
	"errors"
	"reflect"
	"testing"

	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/model"
)

// TestWorkBoundsSweeps checks the work that sweeps share: a Work that
// allows the sweep gives the result of a sweep without one and holds its
// units; one that allows less stops the sweep with ErrWorkBound, having
// spent no more than its limit and what the estimates running at once
// spend; and two sweeps that share one Work spend it together.
func TestWorkBoundsSweeps(t *testing.T) {
	c := Config{
		Kernel: loadExample(t, "star3d-r4"), Device: a100(t), Block: [3]int64{256, 1, 4},
		Method: model.MethodExact, Sizes: []int64{128, 256, 512, 1024, 2048, 4096}, Workers: 2,
	}
	want, err := Sweep(c)
	if err != nil {
		t.Fatal(err)
	}
	c.Work = &Work{}
	got, err := Sweep(c)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sweep under a Work differs from the sweep without:\n%+v\n%+v", got, want)
	}
	all := c.Work.Used()
	if all < 1000*int64(len(c.Sizes)) {
		t.Fatalf("the sweep of %d sizes charged %d units", len(c.Sizes), all)
	}

	c.Work = &Work{Limit: all / 2}
	if _, err := Sweep(c); !errors.Is(err, footprint.ErrWorkBound) {
		t.Errorf("sweep under half its work: %v, want ErrWorkBound", err)
	}
	if used := c.Work.Used(); used > all/2+int64(c.Workers+2)*footprint.DefaultWorkBound || used > all {
		t.Errorf("sweep under %d units spent %d of its %d", all/2, used, all)
	}

	// Two blocks' sweeps share one Work: each alone fits, both do not.
	c.Work = &Work{Limit: all + all/2}
	if _, err := Sweep(c); err != nil {
		t.Fatalf("first sweep under one and a half its work: %v", err)
	}
	c.Block = [3]int64{256, 2, 2}
	if _, err := Sweep(c); !errors.Is(err, footprint.ErrWorkBound) {
		t.Errorf("second sweep on the same Work: %v, want ErrWorkBound", err)
	}
}
