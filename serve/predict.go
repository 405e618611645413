package serve

// The predict endpoint: the request's keys become a typed request.Predict,
// answered with predict's JSON.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
)

// handlePredict answers /api/predict with the JSON of polyvol predict
// --format json for the same keys, and its notes in Polyvol-Note headers.
func (s *Server) handlePredict(w http.ResponseWriter, r *http.Request) {
	values, err := readValues(r, predictEndpoint)
	if err != nil {
		fail(w, err)
		return
	}
	ctx, cancel := s.budget(r)
	defer cancel()
	var out bytes.Buffer
	var notes []string
	err = s.run(ctx, 1, func(ctx context.Context) error {
		var err error
		notes, err = predict(ctx, values, &out)
		return err
	})
	if err != nil {
		fail(w, request.OneLine(err))
		return
	}
	for _, n := range notes {
		w.Header().Add("Polyvol-Note", n)
	}
	writeJSON(w, out.Bytes())
}

// predict estimates the configuration of predict's request values under
// ctx and writes its JSON to out. It returns the notes polyvol predict
// prints, in its order: those on the launch, then those of the spec's
// import and on the kernel. Its errors come in the command line's order:
// the values of the integer and boolean keys, the estimate's options, the
// spec, the domain and the device, then the launch.
func predict(ctx context.Context, values map[string]string, out *bytes.Buffer) ([]string, error) {
	req := request.Predict{Launch: request.Launch{Block: values["block"], Fold: request.DefaultFold, Tile: kernel.TileConsecutive.String()}}
	if v, ok := values["registers"]; ok {
		n, err := strconv.ParseInt(v, 0, strconv.IntSize)
		if err != nil {
			return nil, badValue("registers", v, "not a valid value")
		}
		registers := int(n)
		req.Registers = &registers
	}
	if v, ok := values["unstaged"]; ok {
		var err error
		if req.Launch.Unstaged, err = strconv.ParseBool(v); err != nil {
			return nil, badValue("unstaged", v, "expected true or false")
		}
	}
	setValue(values, "fold", &req.Launch.Fold)
	setValue(values, "tile", &req.Launch.Tile)
	est := request.Estimate{Method: "exact", Model: string(model.DefaultModel), MaxWork: footprint.DefaultWorkBound, MaxMemoryMB: request.DefaultMaxMemoryMB}
	setValue(values, "method", &est.Method)
	setValue(values, "model", &est.Model)
	var err error
	if req.Options, err = est.Options(ctx); err != nil {
		return nil, err
	}
	var specNotes []string
	if req.Kernel, req.Device, specNotes, err = kernelAndDevice(values); err != nil {
		return nil, err
	}
	rep, err := req.Run()
	if err != nil {
		return nil, err
	}
	var notes []string
	for _, n := range rep.Notes[len(kernel.Lint(req.Kernel)):] { // the kernel's notes come first
		notes = append(notes, n.Text)
	}
	return append(notes, specNotes...), request.WriteJSON(out, rep)
}

// badValue is the error of a key whose value its flag cannot parse, as
// the command line words it.
func badValue(key, value, reason string) error {
	return &request.Error{Field: key, Err: fmt.Errorf("--%s %q: %s", key, value, reason)}
}

// setValue sets *v to the value of key when the request has one.
func setValue(values map[string]string, key string, v *string) {
	if value, ok := values[key]; ok {
		*v = value
	}
}

// kernelAndDevice returns the kernel of the request's "spec" or "example"
// (the default spec without either) with its "domain", the notes on it
// (request.LoadSpec) and the device of its "device" (the default device
// without one).
func kernelAndDevice(values map[string]string) (*kernel.Kernel, *device.Device, []string, error) {
	spec := request.Spec{Example: request.DefaultSpec}
	if text, ok := values[keySpec]; ok {
		spec = request.Spec{Text: []byte(text), File: request.StdinName, Label: request.StdinName, Path: "-", Command: "predict", TakesDefines: true}
	} else if name, ok := values[keyExample]; ok {
		spec.Example = name
	}
	var domain *string
	if d, ok := values["domain"]; ok {
		domain = &d
	}
	k, notes, err := request.LoadSpec(spec, domain)
	if err != nil {
		return nil, nil, nil, err
	}
	name := request.DefaultDevice
	setValue(values, "device", &name)
	if err := request.CheckDeviceName("--device", name); err != nil {
		return nil, nil, nil, err
	}
	dev, err := request.FindDevice(name, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	return k, dev, notes, nil
}
