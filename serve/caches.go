package serve

// A process answers request after request (a worker answers one at a
// time, and is kept for the next), and the requests of a client that
// ranks a tuning space differ in their launch only. What does not depend
// on the launch is kept between them: the kernel read from a spec, the
// device, and for each kernel the caches a sweep's estimates share
// (model.Options); the granule counts of footprints are shared by all.

import (
	"slices"
	"sync"

	"github.com/polyvol/polyvol/device"
	"github.com/polyvol/polyvol/footprint"
	"github.com/polyvol/polyvol/kernel"
	"github.com/polyvol/polyvol/model"
	"github.com/polyvol/polyvol/request"
)

// specKey is everything the kernel of a request depends on: its spec
// (the text, or the example's name), its domain and the command that
// loads it (kernelAndDevice).
type specKey struct {
	text, example string
	hasDomain     bool
	domain        string
	command       string
	takesDefines  bool
}

// loadedSpec is a spec's kernel, with the notes on it, and the caches of
// the estimates of that kernel.
type loadedSpec struct {
	k     *kernel.Kernel
	notes []string
	// estimates counts the estimates that used instructions and regions,
	// which are replaced by empty ones after maxEstimatesPerCache.
	estimates    int
	instructions *footprint.InstructionCache
	regions      *model.StepRegionCache
}

// Bounds of the caches kept between requests: the specs, the devices, and
// the estimates whose instruction lists and step regions (one entry per
// distinct launch at most) a spec's caches gather before they start
// afresh; footprint.CountMemo bounds the counts itself.
const (
	maxCachedSpecs       = 16
	maxCachedDevices     = 64
	maxEstimatesPerCache = 4096
)

// processCaches holds what this process keeps between requests; it is safe
// for concurrent use (requests answered in this process when workers are
// disabled run at once).
type processCaches struct {
	mu      sync.Mutex
	specs   map[specKey]*loadedSpec
	devices map[string]*device.Device
	counts  *footprint.CountMemo
}

// caches is this process's processCaches.
var caches = &processCaches{counts: footprint.NewCountMemo()}

// spec returns the kernel of key and the notes on it, loading it with load
// the first time; an error is returned, not kept.
func (c *processCaches) spec(key specKey, load func() (*kernel.Kernel, []string, error)) (*kernel.Kernel, []string, error) {
	c.mu.Lock()
	s, ok := c.specs[key]
	c.mu.Unlock()
	if ok {
		return s.k, slices.Clone(s.notes), nil
	}
	k, notes, err := load()
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.specs == nil || len(c.specs) >= maxCachedSpecs {
		c.specs = map[specKey]*loadedSpec{}
	}
	if s, ok := c.specs[key]; ok { // loaded meanwhile by another request
		return s.k, slices.Clone(s.notes), nil
	}
	c.specs[key] = &loadedSpec{k: k, notes: slices.Clone(notes)}
	return k, notes, nil
}

// device returns the device of name (request.FindDevice), looked up once.
func (c *processCaches) device(name string) (*device.Device, error) {
	c.mu.Lock()
	d, ok := c.devices[name]
	c.mu.Unlock()
	if ok {
		return d, nil
	}
	d, err := request.FindDevice(name, nil)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.devices == nil || len(c.devices) >= maxCachedDevices {
		c.devices = map[string]*device.Device{}
	}
	if kept, ok := c.devices[name]; ok {
		return kept, nil
	}
	c.devices[name] = d
	return d, nil
}

// shareEstimates sets opt's caches to those kept for kernel k (loaded by
// spec; another kernel, one with the registers of a request, gets the
// counts only): its instruction lists and step regions are keyed by
// kernel, launch and device, and the granule counts by the union counted,
// so an estimate with them equals one without (model.Options).
func (c *processCaches) shareEstimates(opt model.Options, k *kernel.Kernel) model.Options {
	opt.Counts = c.counts
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.specs {
		if s.k != k {
			continue
		}
		if s.instructions == nil || s.estimates >= maxEstimatesPerCache {
			s.instructions, s.regions, s.estimates = footprint.NewInstructionCache(), model.NewStepRegionCache(), 0
		}
		s.estimates++
		opt.Instructions, opt.StepRegions = s.instructions, s.regions
	}
	return opt
}
