package serve

import (
	"context"
	"slices"
	"testing"

	"github.com/polyvol/polyvol/examples"
	"github.com/polyvol/polyvol/request"
)

// TestPredictWithKeptCachesEqualsFresh answers predict requests of one
// spec, given as an example, as text and as text at another domain, under launches that differ in
// block, fold and tiling, on two devices and with both methods, one after
// another in this process as a worker answers them, and checks that each
// answer (body and notes) equals the prediction of a kernel, device and
// options loaded afresh for it, with no cache, as polyvol predict makes it.
func TestPredictWithKeptCachesEqualsFresh(t *testing.T) {
	text, err := examples.Read("star3d-r4")
	if err != nil {
		t.Fatal(err)
	}
	methods, blocks := []string{"exact", "reference"}, []string{"32,4,2", "64,2,1", "16,8,4"}
	if testing.Short() {
		methods, blocks = methods[:1], blocks[:1]
	}
	var requests []map[string]string
	for _, dev := range []string{"A100-40GB", "MI100"} {
		for _, method := range methods {
			for _, block := range blocks {
				for _, fold := range []string{"1,1,1", "1,1,4"} {
					for _, spec := range []map[string]string{{keyExample: "star3d-r4"}, {keySpec: string(text)}, {keySpec: string(text), "domain": "96,80,64"}} {
						v := map[string]string{"device": dev, "method": method, "block": block, "fold": fold, "tile": "strided", "instructions": "counted"}
						for key, value := range spec {
							v[key] = value
						}
						requests = append(requests, v)
					}
				}
			}
		}
	}
	for _, v := range requests {
		body, notes, err := predictAnswer(context.Background(), v, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantBody, wantNotes := freshPrediction(t, v)
		if string(body) != string(wantBody) || !slices.Equal(notes, wantNotes) {
			t.Errorf("%v: with the kept caches\n%s\n%q\nwant\n%s\n%q", v, body, notes, wantBody, wantNotes)
		}
	}
	caches.mu.Lock()
	defer caches.mu.Unlock()
	if s := caches.specs[specKey{example: "star3d-r4", command: "predict", takesDefines: true}]; s == nil || s.estimates == 0 {
		t.Errorf("the example's kernel was not kept, or its estimates shared no cache: %+v", s)
	}
}

// freshPrediction returns the body and notes of the predict request v as
// polyvol predict computes them: the spec, device and options loaded for
// it alone.
func freshPrediction(t *testing.T, v map[string]string) ([]byte, []string) {
	t.Helper()
	spec := request.Spec{Example: v[keyExample]}
	if text, ok := v[keySpec]; ok {
		spec = request.Spec{Text: []byte(text), File: request.StdinName, Label: request.StdinName, Path: "-", Command: "predict", TakesDefines: true}
	}
	var domain *string
	if d, ok := v["domain"]; ok {
		domain = &d
	}
	k, specNotes, err := request.LoadSpec(spec, domain)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := request.FindDevice(v["device"], nil)
	if err != nil {
		t.Fatal(err)
	}
	est := request.DefaultEstimate()
	est.Method, est.Instructions.Mode = v["method"], v["instructions"]
	opt, err := est.Options(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	launch, err := request.ParseLaunch(v)
	if err != nil {
		t.Fatal(err)
	}
	p, err := request.Predict{Kernel: k, Device: dev, Launch: launch, Options: opt}.Run()
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, n := range p.LaunchNotes {
		notes = append(notes, n.Text)
	}
	body, err := jsonOf(p.Report)
	if err != nil {
		t.Fatal(err)
	}
	return body, append(notes, specNotes...)
}
