package serve

// The endpoints of one configuration, predict and simulate: the request's
// keys become a typed request (request.Predict, request.Simulate),
// answered with the command's JSON.

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

// answerer answers the request values of one endpoint under ctx: it
// writes the JSON of the answer to out and returns the notes of the
// command line, in its order.
type answerer func(ctx context.Context, values map[string]string, out *bytes.Buffer) ([]string, error)

// handleTyped answers ep's requests with answer, which holds one slot
// while it runs; the notes go into Polyvol-Note headers.
func (s *Server) handleTyped(ep endpoint, answer answerer) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		values, err := readValues(r, ep)
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
			notes, err = answer(ctx, values, &out)
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
}

// predict estimates the configuration of predict's request values under
// ctx and writes its JSON to out. It returns the notes polyvol predict
// prints, in its order: those on the launch, then those of the spec's
// import and on the kernel. Its errors come in the command line's order:
// the values of the integer and boolean keys, the estimate's options, the
// spec, the domain and the device, then the launch.
func predict(ctx context.Context, values map[string]string, out *bytes.Buffer) ([]string, error) {
	req := request.Predict{Launch: launchValues(values)}
	if v, ok := values["registers"]; ok {
		n, err := strconv.ParseInt(v, 0, strconv.IntSize)
		if err != nil {
			return nil, badValue("registers", v, "not a valid value")
		}
		registers := int(n)
		req.Registers = &registers
	}
	var err error
	if req.Launch.Unstaged, err = boolValue(values, "unstaged"); err != nil {
		return nil, err
	}
	est := request.Estimate{Method: "exact", Model: string(model.DefaultModel), MaxWork: footprint.DefaultWorkBound, MaxMemoryMB: request.DefaultMaxMemoryMB}
	setValue(values, "method", &est.Method)
	setValue(values, "model", &est.Model)
	if req.Options, err = est.Options(ctx); err != nil {
		return nil, err
	}
	var specNotes []string
	if req.Kernel, req.Device, specNotes, err = kernelAndDevice(values, "predict", true); err != nil {
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

// boolValue returns the boolean value of key, false without one.
func boolValue(values map[string]string, key string) (bool, error) {
	v, ok := values[key]
	if !ok {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badValue(key, v, "expected true or false")
	}
	return b, nil
}

// launchValues returns the launch of the keys block, fold and tile, with
// the command line's defaults; Unstaged is left to the caller, which
// parses it in the order of the keys.
func launchValues(values map[string]string) request.Launch {
	l := request.Launch{Block: values["block"], Fold: request.DefaultFold, Tile: kernel.TileConsecutive.String()}
	setValue(values, "fold", &l.Fold)
	setValue(values, "tile", &l.Tile)
	return l
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
// without one), as the command, which takes -D or not, loads them.
func kernelAndDevice(values map[string]string, command string, takesDefines bool) (*kernel.Kernel, *device.Device, []string, error) {
	spec := request.Spec{Example: request.DefaultSpec}
	if text, ok := values[keySpec]; ok {
		spec = request.Spec{Text: []byte(text), File: request.StdinName, Label: request.StdinName, Path: "-", Command: command, TakesDefines: takesDefines}
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
