package cli

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polyvol/polyvol/examples"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaDir holds the JSON Schemas of the commands' JSON output
// (docs/json.md), relative to this package's directory, where go test and
// Bazel run the tests.
const schemaDir = "../docs/schema"

// compileSchema compiles the schema docs/schema/NAME.schema.json with the
// schemas it refers to.
func compileSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(schemaDir, name+".schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	sch, err := jsonschema.NewCompiler().Compile(path)
	if err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	return sch
}

// decodeJSON decodes a command's JSON output as the validator reads it.
func decodeJSON(t *testing.T, out string) any {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return doc
}

// validateRun runs polyvol with args and fails the test unless its output
// is valid under sch.
func validateRun(t *testing.T, sch *jsonschema.Schema, args ...string) string {
	t.Helper()
	out := mustRun(t, args...)
	if err := sch.Validate(decodeJSON(t, out)); err != nil {
		t.Errorf("polyvol %s: the output does not follow %s:\n%v", strings.Join(args, " "), sch.Location, err)
	}
	return out
}

// TestSchemaPredict validates predict's report of every embedded example
// on its default launch on an NVIDIA and an AMD GPU, and of the launches,
// methods and models whose reports have optional keys.
func TestSchemaPredict(t *testing.T) {
	sch := compileSchema(t, "predict")
	for _, name := range examples.Names() {
		validateRun(t, sch, "predict", name, "--format", "json")
		validateRun(t, sch, "predict", name, "--device", "MI210", "--format", "json")
	}
	for _, args := range [][]string{
		{"star3d-r1-staged", "--unstaged"},
		{"star3d-r4", "--fold", "1,1,2", "--tile", "strided"},
		{"star3d-r4", "--method", "reference"},
		{"star3d-r4", "--model", "roofline"},
		{"star3d-r4", "--model", "latency"},
		{"star3d-r4", "--model", "su2015"},
		{"vec-copy", "--model", "su2015"},
		{"star3d-r4", "--domain", "64,64,64", "--block", "1024,1,1"},
	} {
		validateRun(t, sch, append([]string{"predict", "--format", "json"}, args...)...)
	}
}

// TestSchemaExplore validates explorations, with strided tiles, staging
// choices, time steps, a registers table, a skipped configuration, shards
// and their merge.
func TestSchemaExplore(t *testing.T) {
	sch := compileSchema(t, "explore")
	explore := func(spec string, args ...string) []string {
		small := []string{"explore", spec, "--threads", "64", "--folds", "1,1,1", "--domain", "16,16,16", "--format", "json"}
		return append(small, args...) // the last of a repeated flag counts
	}
	validateRun(t, sch, explore("star3d-r4", "--folds", "1,1,1:1,1,2")...)
	validateRun(t, sch, explore("star3d-r1-staged", "--staging", "on,off", "--tiles", "consecutive")...)
	validateRun(t, sch, explore("convolution-15x15-staged", "--staging", "off", "--domain", "64,64,1")...)
	validateRun(t, sch, explore("hotspot", "--steps", "1,2,200", "--staging", "on,off", "--domain", "64,64,1")...)
	validateRun(t, sch, explore("star3d-r4", "--threads", "512", "--registers-table", writeRegistersTable(t))...)
	dir := t.TempDir()
	var shards []string
	for k := 1; k <= 2; k++ {
		out := validateRun(t, sch, explore("star3d-r1", "--shard", fmt.Sprintf("%d/2", k))...)
		path := filepath.Join(dir, fmt.Sprintf("shard-%d.json", k))
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, path)
	}
	validateRun(t, sch, append([]string{"merge", "--format", "json"}, shards...)...)
}

// writeRegistersTable writes a --registers-table that gives block 32,16,1
// more registers than an A100's SM holds, so that explore --threads 512
// skips it, and returns its path.
func writeRegistersTable(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "registers.csv")
	if err := os.WriteFile(path, []byte("block,fold,registers\n\"32,16,1\",\"1,1,1\",255\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSchemaLayercond validates a short layercond sweep of two blocks.
func TestSchemaLayercond(t *testing.T) {
	validateRun(t, compileSchema(t, "layercond"), "layercond", "star3d-r4", "--block", "256,1,2:64,4,1", "--sweep", "256,512,1024", "--format", "json")
}

// TestSchemaSimulate validates simulations on small domains, of staged
// fields too, with the options that change the output's keys.
func TestSchemaSimulate(t *testing.T) {
	sch := compileSchema(t, "simulate")
	for _, args := range [][]string{
		{"star3d-r1", "--domain", "64,16,16", "--compare"},
		{"star3d-r1-staged", "--domain", "64,16,16", "--compare"},
		{"star3d-r1-staged", "--domain", "64,16,16", "--unstaged"},
		{"convolution-15x15-staged", "--domain", "64,64"},
		{"star3d-r4", "--domain", "64,16,16", "--fold", "1,1,2", "--tile", "strided", "--infinite", "--compare"},
		{"lbm-d3q19-pull", "--domain", "16,16,16", "--split-l2", "--l1-policy", "plru", "--schedule", "warp"},
	} {
		validateRun(t, sch, append([]string{"simulate", "--format", "json"}, args...)...)
	}
}

// TestSchemaDevices validates the device list and single devices.
func TestSchemaDevices(t *testing.T) {
	sch := compileSchema(t, "devices")
	validateRun(t, sch, "devices", "--format", "json")
	validateRun(t, sch, "devices", "MI210", "--format", "json")
	validateRun(t, sch, "devices", "--device-file", "../examples/devices/a100-80mb-l2.yaml", "A100-80MB-L2", "--format", "json")
}

// TestSchemaProject validates both modes of project.
func TestSchemaProject(t *testing.T) {
	sch := compileSchema(t, "project")
	args := []string{"project", "--profile", "../examples/profiles/star3d-r4-a100-illustrative.json", "--from", "A100-40GB", "--to", "H100-SXM", "--format", "json"}
	validateRun(t, sch, args...)
	validateRun(t, sch, append(args, "--spec", "star3d-r4", "--block", "256,1,2")...)
}

// TestSchemaRegion validates predict --statement all.
func TestSchemaRegion(t *testing.T) {
	validateRun(t, compileSchema(t, "region"), "predict", "testdata/jscop/init-stencil.jscop", "--statement", "all", "-D", "n=64", "--format", "json")
}

// TestSchemaRejects checks that the schemas are not vacuous: each refuses
// an output with a required key removed, with an undocumented key added to
// any of its objects (the first element of each array standing for the
// others), and with a string in place of a required value.
func TestSchemaRejects(t *testing.T) {
	// Per schema, a command whose output has the optional objects, and
	// paths (keys and array indices) of required keys, the first one's
	// value not a string.
	probes := []struct {
		schema   string
		args     []string
		required [][]any
	}{
		{"predict", []string{"predict", "star3d-r1-staged", "--format", "json"}, [][]any{
			{"schemaVersion"}, {"kernel"}, {"launch", "grid"}, {"basic", "L1Cycles"}, {"basic", "loadFields", 0, "name"},
			{"derived", "perfL1"}, {"derived", "limV3"}, {"derived", "storeFields", 0, "memStoreV2"},
			{"instructions", "total"}, {"prediction", "GLups"}, {"prediction", "bounds", 0, "name"},
		}},
		{"predict", []string{"predict", "star3d-r4", "--model", "latency", "--domain", "64,64,64", "--block", "1024,1,1", "--format", "json"}, [][]any{
			{"prediction", "latency", "neededWarps"}, {"notes", 0, "code"},
		}},
		{"explore", []string{"explore", "star3d-r4", "--threads", "512", "--folds", "1,1,1:1,1,2", "--domain", "16,16,16", "--registers-table", writeRegistersTable(t), "--shard", "1/2"}, [][]any{
			{"configurations"}, {"rows"}, {"skipped", 0, "reason"}, {"registersTable", 0, "registers"}, {"rows", 0, "derived", "perfV1"}, {"shard", "digest"},
		}},
		{"layercond", []string{"layercond", "star3d-r4", "--sweep", "256,512", "--format", "json"}, [][]any{
			{"total"}, {"sequential"}, {"sequential", "conditions", 1, "maxSquare"}, {"sweeps", 0, "points", 0, "fits"}, {"sweeps", 0, "transitions", 0, "kind"},
		}},
		{"simulate", []string{"simulate", "star3d-r1-staged", "--domain", "64,16,16", "--compare", "--format", "json"}, [][]any{
			{"launch", "waves"}, {"config", "schedule"}, {"derived", "loadFields", 0, "memLoadV4"}, {"simulated", "fields", 0, "field"}, {"simulated", "total", "l2Misses"}, {"predicted", "L1Load"},
		}},
		{"devices", []string{"devices", "A100-40GB", "--format", "json"}, [][]any{
			{"sms"}, {"limits", "shared_per_sm"}, {"latencies", "fp_cycles"},
		}},
		{"project", []string{"project", "--profile", "../examples/profiles/star3d-r4-a100-illustrative.json", "--from", "A100-40GB", "--to", "H100-SXM", "--spec", "star3d-r4", "--format", "json"}, [][]any{
			{"projection", "minTimeS"}, {"mode"}, {"targetBytes", "shared"}, {"targetEstimate", "prediction"}, {"projection", "levels", 0, "timeS"},
		}},
		{"region", []string{"predict", "testdata/jscop/init-stencil.jscop", "--statement", "all", "-D", "n=64", "--format", "json"}, [][]any{
			{"total", "bytes", "memStoreV2"}, {"kernels", 0, "report", "launch"}, {"skipped", 0, "reason"},
		}},
	}
	for _, p := range probes {
		sch := compileSchema(t, p.schema)
		out := mustRun(t, p.args...)
		doc := decodeJSON(t, out)
		if err := sch.Validate(doc); err != nil {
			t.Fatalf("polyvol %s: the output does not follow %s: %v", strings.Join(p.args, " "), p.schema, err)
		}
		// refuse changes the key at path of a fresh copy of the output,
		// which the schema must then refuse.
		refuse := func(what string, path []any, change func(obj map[string]any, key string)) {
			t.Helper()
			doc := decodeJSON(t, out)
			change(lookup(t, doc, path[:len(path)-1]), path[len(path)-1].(string))
			if sch.Validate(doc) == nil {
				t.Errorf("%s: polyvol %s: the schema accepts the output %s at %v", p.schema, strings.Join(p.args, " "), what, path)
			}
		}
		for _, path := range p.required {
			refuse("without the required key", path, func(m map[string]any, k string) {
				if _, ok := m[k]; !ok {
					t.Fatalf("polyvol %s: the output has no key %v", strings.Join(p.args, " "), path)
				}
				delete(m, k)
			})
		}
		for _, path := range objectPaths(doc, nil) {
			refuse("with an undocumented key", append(slices.Clip(path), "undocumented"), func(m map[string]any, k string) { m[k] = 1 })
		}
		refuse("with a string value", p.required[0], func(m map[string]any, k string) { m[k] = "1" })
	}
}

// openObjects are the objects of the outputs that are maps by design, whose
// keys the schemas leave open: a device's sources.
var openObjects = map[string]bool{"sources": true}

// lookup returns the object at path (keys and array indices) in doc.
func lookup(t *testing.T, doc any, path []any) map[string]any {
	t.Helper()
	v := doc
	for _, step := range path {
		switch s := step.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[s]
		case int:
			a, _ := v.([]any)
			if s >= len(a) {
				t.Fatalf("path %v: no element %d", path, s)
			}
			v = a[s]
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("path %v: %T, not an object", path, v)
	}
	return m
}

// objectPaths returns the paths of the objects in v, at path, with the
// first element of each array only, in key order; the objects of
// openObjects are left out.
func objectPaths(v any, path []any) [][]any {
	var out [][]any
	switch v := v.(type) {
	case map[string]any:
		out = append(out, path)
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if !openObjects[k] {
				out = append(out, objectPaths(v[k], append(slices.Clip(path), k))...)
			}
		}
	case []any:
		if len(v) > 0 {
			out = append(out, objectPaths(v[0], append(slices.Clip(path), 0))...)
		}
	}
	return out
}
