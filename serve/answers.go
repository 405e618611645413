package serve

// The answers of the endpoints that run work: the request's keys become a
// typed request of package request (Predict, Simulate, Layercond,
// Explore), answered with the command's JSON.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/polyvol/polyvol/chart"
	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/explore"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/request"
)

// answer computes the answer of one endpoint to a request's values under
// ctx: the JSON body and the notes the command line prints, in its order.
// progress, set for explore only, receives the sweep's progress: once with
// done = 0 before the first configuration, then after each.
type answer func(ctx context.Context, values map[string]string, progress func(done, total int)) (body []byte, notes []string, err error)

// answersOf returns the answer of each endpoint that runs work, by its
// command's name: explore and layercond estimate on parallel goroutines, and
// a simulation's trace holds at most maxSimAccesses thread memory
// accesses.
func answersOf(parallel int, maxSimAccesses int64) map[string]answer {
	return map[string]answer{
		predictEndpoint.command:   predictAnswer,
		simulateEndpoint.command:  simulateAnswer(maxSimAccesses),
		layercondEndpoint.command: layercondAnswer(parallel),
		exploreEndpoint.command:   exploreAnswer(parallel),
	}
}

// predictAnswer estimates the configuration of predict's request values under
// ctx. Its notes come in polyvol predict's order: those on the launch, then
// those of the spec's import and on the kernel. Its errors come in the
// command line's order: the values of the integer and boolean keys, the
// estimate's options, the spec, the domain and the device, then the launch.
func predictAnswer(ctx context.Context, values map[string]string, _ func(int, int)) ([]byte, []string, error) {
	var req request.Predict
	registers, err := registersValue(values)
	if err != nil {
		return nil, nil, err
	}
	req.Registers = registers
	unstaged, err := boolValue(values, "unstaged")
	if err != nil {
		return nil, nil, err
	}
	if req.Options, err = estimateValues(values).Options(ctx); err != nil {
		return nil, nil, err
	}
	var specNotes []string
	if req.Kernel, req.Device, specNotes, err = kernelAndDevice(values, "predict", true); err != nil {
		return nil, nil, err
	}
	if req.Launch, err = request.ParseLaunch(values); err != nil {
		return nil, nil, err
	}
	req.Launch.Unstaged = unstaged
	req.Options = caches.shareEstimates(req.Options, req.Kernel)
	p, err := req.Run()
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	for _, n := range p.LaunchNotes {
		notes = append(notes, n.Text)
	}
	body, err := jsonOf(p.Report)
	return body, append(notes, specNotes...), err
}

// simulateAnswer returns the answer of simulate's request values, whose trace
// may hold at most maxAccesses thread memory accesses.
func simulateAnswer(maxAccesses int64) answer {
	return func(ctx context.Context, values map[string]string, _ func(int, int)) ([]byte, []string, error) {
		req := request.DefaultSimulate()
		req.MaxAccesses = maxAccesses
		var unstaged bool
		var err error
		for _, b := range []struct {
			key string
			v   *bool
		}{{"unstaged", &unstaged}, {"infinite", &req.Infinite}, {"split-l2", &req.SplitL2}} {
			if *b.v, err = boolValue(values, b.key); err != nil {
				return nil, nil, err
			}
		}
		setValue(values, "l1-policy", &req.L1Policy)
		setValue(values, "l2-policy", &req.L2Policy)
		setValue(values, "schedule", &req.Schedule)
		var specNotes []string
		if req.Kernel, req.Device, specNotes, err = kernelAndDevice(values, "simulate", false); err != nil {
			return nil, nil, err
		}
		launch, err := request.ParseLaunch(values) // simulate's keys have no steps: the spec's
		if err != nil {
			return nil, nil, err
		}
		launch.Unstaged = unstaged
		if req.Launch, err = launch.Of(req.Kernel); err != nil {
			return nil, nil, err
		}
		out, err := req.Run(ctx)
		if err != nil {
			return nil, nil, err
		}
		body, err := jsonOf(out)
		return body, append(req.Notes(), specNotes...), err
	}
}

// layercondAnswer returns the answer of layercond's request values, whose
// sweeps run workers plane sizes in parallel: {"report": layercond's JSON,
// "svg": its plot}.
func layercondAnswer(workers int) answer {
	return func(ctx context.Context, values map[string]string, _ func(int, int)) ([]byte, []string, error) {
		keys := request.DefaultLayercondKeys()
		setValue(values, "method", &keys.Method)
		setValue(values, "sweep", &keys.Sweep)
		setValue(values, "fold", &keys.Fold)
		var err error
		if keys.Total, err = intValue(values, "total", 64, keys.Total); err != nil {
			return nil, nil, err
		}
		if keys.Inner, err = intValue(values, "inner", 64, keys.Inner); err != nil {
			return nil, nil, err
		}
		if v, ok := values["cache-fraction"]; ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, nil, badValue("cache-fraction", v, "not a valid value")
			}
			keys.CacheFraction = f
		}
		req, err := keys.Layercond()
		if err != nil {
			return nil, nil, err
		}
		req.Workers = workers
		var notes []string
		if req.Kernel, req.Device, notes, err = kernelAndDevice(values, "layercond", true); err != nil {
			return nil, nil, err
		}
		if b, ok := values["block"]; ok {
			if req.Blocks, err = request.ParseBlocks([]string{b}); err != nil {
				return nil, nil, err
			}
		}
		rep, err := req.Run(ctx)
		if err != nil {
			return nil, nil, err
		}
		body, err := layercondBody(rep)
		return body, notes, err
	}
}

// layercondBody returns {"report": the JSON of rep, "svg": its plot}.
func layercondBody(rep *request.LayercondReport) ([]byte, error) {
	report, err := jsonOf(rep)
	if err != nil {
		return nil, err
	}
	var svg bytes.Buffer
	if err := chart.Layercond(&svg, "svg", chart.DefaultSize, rep); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("{\n\"report\": ")
	b.Write(bytes.TrimSpace(report))
	b.WriteString(",\n\"svg\": ")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep the SVG's < and > readable
	if err := enc.Encode(svg.String()); err != nil {
		return nil, err
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// exploreAnswer returns the answer of explore's request values, whose sweep
// estimates workers configurations in parallel: explore's JSON, of the
// slice K/N of the sweep with the key shard (explore --shard K/N).
func exploreAnswer(workers int) answer {
	return func(ctx context.Context, values map[string]string, progress func(int, int)) ([]byte, []string, error) {
		est := estimateValues(values)
		opt, err := est.Options(ctx)
		if err != nil {
			return nil, nil, err
		}
		opt.Counts = caches.counts // the process's granule counts, exact for every kernel
		sweep := request.DefaultSweep()
		setValue(values, "threads", &sweep.Threads)
		setValue(values, "folds", &sweep.Folds)
		setValue(values, "tiles", &sweep.Tiles)
		setValue(values, "staging", &sweep.Staging)
		setValue(values, "steps", &sweep.Steps)
		req := request.DefaultExplore()
		if req.Config, err = sweep.Apply(explore.Config{Estimate: opt, Workers: workers}); err != nil {
			return nil, nil, err
		}
		req.Config = est.Instructions.Explore(req.Config)
		if v, ok := values["shard"]; ok {
			if req.Config.Shard, err = request.ParseShard(v); err != nil {
				return nil, nil, err
			}
			req.Config.Shard.Format = "json" // the output /api/merge and polyvol merge render by default
		}
		registers, err := registersValue(values)
		if err != nil {
			return nil, nil, err
		}
		var notes []string
		if req.Config.Kernel, req.Config.Device, notes, err = kernelAndDevice(values, "explore", true); err != nil {
			return nil, nil, err
		}
		if registers != nil {
			if req.Config.Kernel, err = request.WithRegisters(req.Config.Kernel, *registers); err != nil {
				return nil, nil, err
			}
		}
		n, err := req.Size()
		if err != nil {
			return nil, nil, err
		}
		progress(0, n)
		req.Config.Progress = progress
		e, err := req.Run(ctx)
		if err != nil {
			return nil, nil, err
		}
		body, err := jsonOf(e)
		return body, notes, err
	}
}

// jsonOf returns the JSON of v as the command line writes it
// (request.WriteJSON).
func jsonOf(v any) ([]byte, error) {
	var out bytes.Buffer
	err := request.WriteJSON(&out, v)
	return out.Bytes(), err
}

// estimateValues returns the estimate of the keys method, model and
// instructions (compiled or counted: the spec's generated kernel; a
// request names no source file), with the command line's defaults and
// bounds.
func estimateValues(values map[string]string) request.Estimate {
	est := request.DefaultEstimate()
	setValue(values, "method", &est.Method)
	setValue(values, "model", &est.Model)
	setValue(values, "instructions", &est.Instructions.Mode)
	return est
}

// registersValue returns the value of the key registers, nil without one.
func registersValue(values map[string]string) (*int, error) {
	if _, ok := values["registers"]; !ok {
		return nil, nil
	}
	n, err := intValue(values, "registers", strconv.IntSize, 0)
	if err != nil {
		return nil, err
	}
	registers := int(n)
	return &registers, nil
}

// intValue returns the integer value of key (Go syntax, fitting in bits
// bits), or def without one.
func intValue(values map[string]string, key string, bits int, def int64) (int64, error) {
	v, ok := values[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 0, bits)
	if err != nil {
		return 0, badValue(key, v, "not a valid value")
	}
	return n, nil
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
	key := specKey{command: command, takesDefines: takesDefines}
	if text, ok := values[keySpec]; ok {
		spec = request.Spec{Text: []byte(text), File: request.StdinName, Label: request.StdinName, Path: "-", Command: command, TakesDefines: takesDefines}
		key.text = text
	} else if name, ok := values[keyExample]; ok {
		spec.Example = name
	}
	key.example = spec.Example
	var domain *string
	if d, ok := values["domain"]; ok {
		domain = &d
		key.hasDomain, key.domain = true, d
	}
	k, notes, err := caches.spec(key, func() (*kernel.Kernel, []string, error) { return request.LoadSpec(spec, domain) })
	if err != nil {
		return nil, nil, nil, err
	}
	name := request.DefaultDevice
	setValue(values, "device", &name)
	if err := request.CheckDeviceName("--device", name); err != nil {
		return nil, nil, nil, err
	}
	dev, err := caches.device(name)
	if err != nil {
		return nil, nil, nil, err
	}
	return k, dev, notes, nil
}
