package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/polyvol/polyvol/device"
)

// Ceilings are the maximum rates of one GPU for the hierarchical roofline:
// double-precision FMA performance in GFlop/s and bandwidths in GB/s.
type Ceilings struct {
	Device     string  `json:"device"`
	PerfGFlops float64 `json:"perfGFlops"` // FMA peak
	DRAMGBs    float64 `json:"DRAMGBs"`
	L2GBs      float64 `json:"L2GBs"`
	L1GBs      float64 `json:"L1GBs"` // also serves shared memory, which lives in L1
	Provenance string  `json:"provenance"`
}

// CeilingsFor returns the ceilings of dev for fpBytes-byte floating point
// (4 or 8), from the same device numbers that Estimate's limiters use, so
// that project and predict agree: FMA peak 2·lanes·clock·SMs (FlopsBound's
// instruction rate, two flops per FMA), the device's L2 and DRAM bandwidths
// (measured where the database has a measurement, docs/devices.md), and L1
// = bank width per cycle over all SMs. The Provenance field names the
// device and the class of its bandwidths' sources (device.SourceClass).
func CeilingsFor(dev device.Device, fpBytes int) (Ceilings, error) {
	lanes := dev.FP64PerCycleSM
	if fpBytes == 4 {
		lanes = dev.FP32PerCycleSM
	}
	c := Ceilings{
		Device:     dev.Name,
		PerfGFlops: 2 * lanes * dev.ClockGHz * float64(dev.SMs),
		DRAMGBs:    dev.DRAMBandwidthGBs,
		L2GBs:      dev.L2BandwidthGBs,
		L1GBs:      float64(dev.L1BankWidth) * dev.ClockGHz * float64(dev.SMs),
		Provenance: fmt.Sprintf("%s: DRAM %s, L2 %s", dev.Name, dev.SourceClass("dram_bandwidth_gbs"), dev.SourceClass("l2_bandwidth_gbs")),
	}
	return c, c.validate()
}

func (c Ceilings) validate() error {
	for _, v := range []struct {
		name  string
		value float64
	}{{"perf", c.PerfGFlops}, {"DRAM bandwidth", c.DRAMGBs}, {"L2 bandwidth", c.L2GBs}, {"L1 bandwidth", c.L1GBs}} {
		if !(v.value > 0) || math.IsInf(v.value, 0) {
			return fmt.Errorf("model: ceilings of %q: %s must be positive and finite, got %v", c.Device, v.name, v.value)
		}
	}
	return nil
}

// LevelBytes are the bytes a kernel moves at each memory level.
type LevelBytes struct {
	L1     float64 `json:"L1"`
	Shared float64 `json:"shared"`
	L2     float64 `json:"L2"`
	DRAM   float64 `json:"DRAM"`
}

// Profile is one kernel measured on a source GPU (e.g. from Nsight Compute).
type Profile struct {
	TimeS float64    `json:"timeS"`
	Flops float64    `json:"flops"`
	Bytes LevelBytes `json:"bytes"`
	// SharedBytesPerCycle is the shared-memory bytes served per cycle; 128
	// (32 banks × 4 B) is conflict-free, and 0 is read as 128.
	SharedBytesPerCycle float64 `json:"sharedBytesPerCycle,omitempty"`
	// ActiveThreadsPerInstr is the mean number of active threads per warp
	// instruction (at most 32).
	ActiveThreadsPerInstr float64 `json:"activeThreadsPerInstr"`
	FMAInstr              float64 `json:"fmaInstr"`
	AddMulInstr           float64 `json:"addMulInstr"` // ADD plus MUL instructions
}

// sharedBytesPerCycleMax is the conflict-free shared-memory rate: 32 banks of 4 B.
const sharedBytesPerCycleMax = 128

// Bounds of a profile's numbers: each is 0 or of magnitude between
// MinProfileValue and MaxProfileValue. A measured count, time or rate lies
// far inside them, and within them no step of a projection between the
// devices of the database overflows or underflows float64; a projection
// that still does (a device file's extreme ceilings) is refused as out of
// range.
const (
	MinProfileValue = 1e-30
	MaxProfileValue = 1e30
)

// profileValueOK reports whether v is 0 or of magnitude within the bounds
// of a profile's numbers (NaN and the infinities are not).
func profileValueOK(v float64) bool {
	a := math.Abs(v)
	return a == 0 || (a >= MinProfileValue && a <= MaxProfileValue)
}

// profileRange is the rule of profileValueOK, for error messages.
const profileRange = "a profile's numbers must be 0 or of magnitude between 1e-30 and 1e30"

func (p Profile) validate() error {
	for _, v := range []struct {
		key   string
		value float64
	}{
		{"timeS", p.TimeS}, {"flops", p.Flops},
		{"bytes.L1", p.Bytes.L1}, {"bytes.shared", p.Bytes.Shared}, {"bytes.L2", p.Bytes.L2}, {"bytes.DRAM", p.Bytes.DRAM},
		{"sharedBytesPerCycle", p.SharedBytesPerCycle}, {"activeThreadsPerInstr", p.ActiveThreadsPerInstr},
		{"fmaInstr", p.FMAInstr}, {"addMulInstr", p.AddMulInstr},
	} {
		if !profileValueOK(v.value) {
			return fmt.Errorf("model: profile %s %v: out of range: %s", v.key, v.value, profileRange)
		}
	}
	switch {
	case !(p.TimeS > 0):
		return fmt.Errorf("model: profile timeS must be positive, got %v", p.TimeS)
	case p.Flops < 0:
		return fmt.Errorf("model: profile flops must not be negative, got %v", p.Flops)
	case p.Bytes.L1 < 0 || p.Bytes.Shared < 0 || p.Bytes.L2 < 0 || p.Bytes.DRAM < 0:
		return fmt.Errorf("model: profile bytes must not be negative, got %+v", p.Bytes)
	case !(p.ActiveThreadsPerInstr > 0) || p.ActiveThreadsPerInstr > 32:
		return fmt.Errorf("model: profile activeThreadsPerInstr must be in (0, 32], got %v", p.ActiveThreadsPerInstr)
	case p.FMAInstr < 0 || p.AddMulInstr < 0:
		return fmt.Errorf("model: profile fmaInstr and addMulInstr must not be negative")
	case p.SharedBytesPerCycle < 0 || p.SharedBytesPerCycle > sharedBytesPerCycleMax:
		return fmt.Errorf("model: profile sharedBytesPerCycle must be in [0, %d], got %v", sharedBytesPerCycleMax, p.SharedBytesPerCycle)
	}
	return nil
}

// MaxProfileBytes bounds the size of a profile, a JSON object of a dozen
// numbers.
const MaxProfileBytes = 1 << 20

// LoadProfile reads a JSON profile of at most MaxProfileBytes: one JSON
// object and nothing after it. Errors name the file, and the key or the
// line and column.
func LoadProfile(path string) (Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return Profile{}, fmt.Errorf("model: profile: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxProfileBytes+1))
	if err != nil {
		return Profile{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxProfileBytes {
		return Profile{}, fmt.Errorf("%s: larger than %d MiB; a profile is a small JSON object", path, MaxProfileBytes>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Profile{}, fmt.Errorf("%s: empty; a profile is a JSON object of the kernel's measured counts", path)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr) && typeErr.Field == "":
			start := int64(len(data) - len(bytes.TrimLeft(data, " \t\r\n")))
			return Profile{}, fmt.Errorf("%s:%s: expected a JSON object, got JSON %s", path, lineColumn(data, start), typeErr.Value)
		case errors.As(err, &typeErr):
			if off := keyOffset(data, typeErr.Field); off >= 0 {
				return Profile{}, fmt.Errorf("%s:%s: key %q: expected %s, got JSON %s", path, lineColumn(data, off), typeErr.Field, typeErr.Type, typeErr.Value)
			}
			return Profile{}, fmt.Errorf("%s: key %q: expected %s, got JSON %s", path, typeErr.Field, typeErr.Type, typeErr.Value)
		case errors.As(err, &syntaxErr):
			return Profile{}, fmt.Errorf("%s:%s: %v", path, lineColumn(data, syntaxErr.Offset), err)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return Profile{}, fmt.Errorf("%s: the JSON object ends early", path)
		}
		return Profile{}, fmt.Errorf("%s: %w", path, err)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return Profile{}, fmt.Errorf("%s:%s: text after the profile's JSON object", path, lineColumn(data, int64(len(data)-len(rest))))
	}
	if err := checkProfileNumbers(data); err != nil {
		return Profile{}, fmt.Errorf("%s:%w", path, err)
	}
	if err := p.validate(); err != nil {
		return Profile{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// checkProfileNumbers refuses the first number of the JSON document data
// (valid JSON) that profileValueOK refuses, naming its line, column and key.
func checkProfileNumbers(data []byte) error {
	return walkJSON(data, func(key string, off int64, tok json.Token) error {
		n, ok := tok.(json.Number)
		if !ok {
			return nil
		}
		v, err := strconv.ParseFloat(string(n), 64)
		if err != nil || !profileValueOK(v) {
			return fmt.Errorf("%s: key %q: %s is out of range: %s", lineColumn(data, off), key, n, profileRange)
		}
		return nil
	})
}

// keyOffset is the offset in data of the value of the key that
// encoding/json names key (members joined by dots), or -1.
func keyOffset(data []byte, key string) int64 {
	found := int64(-1)
	stop := errors.New("found")
	walkJSON(data, func(k string, off int64, _ json.Token) error {
		if k == key {
			found = off
			return stop
		}
		return nil
	})
	return found
}

// walkJSON calls visit with the key (object members joined by dots, array
// elements as [i]), the offset and the token of every value of the JSON
// document data, numbers as json.Number, objects and arrays by their
// opening delimiter. It stops at visit's first error, or at a syntax error,
// which it returns.
func walkJSON(data []byte, visit func(key string, off int64, tok json.Token) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// frame is an open object or array: its key, and for an object whether
	// the next token is a member name, for an array the next index.
	type frame struct {
		key      string
		object   bool
		nameNext bool
		index    int
		member   string
	}
	var stack []frame
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		// The token starts after the separators and blanks before it.
		off := start + int64(len(data[start:])-len(bytes.TrimLeft(data[start:], " \t\r\n:,")))
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		key := ""
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.object {
				if top.nameNext {
					top.member, top.nameNext = tok.(string), false
					continue
				}
				top.nameNext = true
				key = top.member
				if top.key != "" {
					key = top.key + "." + top.member
				}
			} else {
				key = fmt.Sprintf("%s[%d]", top.key, top.index)
				top.index++
			}
		}
		if err := visit(key, off, tok); err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, frame{key: key, object: d == '{', nameNext: d == '{'})
		}
	}
}

// lineColumn is the 1-based "line:column" of byte offset off in data.
func lineColumn(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("%d:%d", line, col)
}

// LevelProjection is the projection through one memory level's roofline.
type LevelProjection struct {
	Level            string  `json:"level"`           // "L1", "L2" or "DRAM"
	SourceBWGBs      float64 `json:"sourceBWCeilGBs"` // bandwidth ceiling on the source
	TargetBWGBs      float64 `json:"targetBWCeilGBs"` // bandwidth ceiling on the target
	SourceRoofGFlops float64 `json:"sourceRooflineGFlops"`
	TargetRoofGFlops float64 `json:"targetRooflineGFlops"`
	TimeS            float64 `json:"timeS"` // predicted target time
}

// Projection is the predicted target time per level and their interval.
type Projection struct {
	Source   Ceilings          `json:"source"`
	Target   Ceilings          `json:"target"`
	Levels   []LevelProjection `json:"levels"`
	MinTimeS float64           `json:"minTimeS"`
	MaxTimeS float64           `json:"maxTimeS"`
}

// Project predicts p's time on target assuming the same bytes per level as
// on source (the paper's pure projection).
func Project(p Profile, source, target Ceilings) (Projection, error) {
	return ProjectWithVolumes(p, source, target, p.Bytes)
}

// ProjectWithVolumes predicts p's time on target with the target's own
// bytes per level (e.g. recomputed for the target's cache sizes), which
// removes the pure projection's same-bytes assumption.
func ProjectWithVolumes(p Profile, source, target Ceilings, targetBytes LevelBytes) (Projection, error) {
	if err := p.validate(); err != nil {
		return Projection{}, err
	}
	for _, c := range []Ceilings{source, target} {
		if err := c.validate(); err != nil {
			return Projection{}, err
		}
	}
	for _, b := range []float64{targetBytes.L1, targetBytes.Shared, targetBytes.L2, targetBytes.DRAM} {
		if !(b >= 0) || math.IsInf(b, 0) {
			return Projection{}, fmt.Errorf("model: target bytes must be finite and not negative, got %+v", targetBytes)
		}
	}
	src := p.ceilingsPerLevel(source, p.Bytes)
	tgt := p.ceilingsPerLevel(target, targetBytes)
	proj := Projection{Source: source, Target: target, MinTimeS: math.Inf(1)}
	for i, level := range []string{"L1", "L2", "DRAM"} {
		if p.Flops == 0 && src[i].bytes == 0 {
			continue // neither flops nor bytes: this level says nothing
		}
		lp := LevelProjection{
			Level: level, SourceBWGBs: src[i].bw, TargetBWGBs: tgt[i].bw,
			SourceRoofGFlops: p.roofline(source, src[i]),
			TargetRoofGFlops: p.roofline(target, tgt[i]),
		}
		if p.Flops > 0 {
			// Perf_target = Perf_source/roof_source·roof_target; time = flops/perf.
			lp.TimeS = p.TimeS * lp.SourceRoofGFlops / lp.TargetRoofGFlops
		} else {
			// Without flops both rooflines are bandwidth lines at OI → 0:
			// the ratio of the rooflines tends to the bytes-per-second ratio.
			lp.TimeS = p.TimeS * (tgt[i].bytes / tgt[i].bw) / (src[i].bytes / src[i].bw)
		}
		proj.Levels = append(proj.Levels, lp)
		proj.MinTimeS = math.Min(proj.MinTimeS, lp.TimeS)
		proj.MaxTimeS = math.Max(proj.MaxTimeS, lp.TimeS)
	}
	if len(proj.Levels) == 0 {
		return Projection{}, errors.New("model: profile has neither flops nor bytes to project")
	}
	if err := proj.checkRange(p.TimeS); err != nil {
		return Projection{}, err
	}
	return proj, nil
}

// checkRange refuses a projection with a number that overflowed or
// underflowed: every bandwidth, projected time and speed-up over the
// measured timeS must be positive and finite, every roofline finite and
// not negative (it is 0 for a profile without flops).
func (proj Projection) checkRange(timeS float64) error {
	for _, l := range proj.Levels {
		for _, v := range []struct {
			name   string
			value  float64
			zeroOK bool
		}{
			{"source bandwidth ceiling", l.SourceBWGBs, false}, {"target bandwidth ceiling", l.TargetBWGBs, false},
			{"source roofline", l.SourceRoofGFlops, true}, {"target roofline", l.TargetRoofGFlops, true},
			{"time", l.TimeS, false}, {"speed-up", timeS / l.TimeS, false},
		} {
			if !(v.value > 0 || v.zeroOK && v.value == 0) || math.IsInf(v.value, 0) {
				return fmt.Errorf("model: projection out of range: level %s: %s %v; the profile's or the devices' numbers are too large or too small to project", l.Level, v.name, v.value)
			}
		}
	}
	return nil
}

// levelCeiling is one level's bandwidth ceiling and the bytes N⁺ it covers.
type levelCeiling struct{ bw, bytes float64 }

// ceilingsPerLevel returns the weighted-harmonic bandwidth ceilings of the
// L1, L2 and DRAM levels for the given bytes.
func (p Profile) ceilingsPerLevel(c Ceilings, b LevelBytes) [3]levelCeiling {
	perCycle := p.SharedBytesPerCycle
	if perCycle == 0 {
		perCycle = sharedBytesPerCycleMax
	}
	tDRAM := b.DRAM / c.DRAMGBs
	tL2 := b.L2 / c.L2GBs
	tL1 := b.L1 / c.L1GBs
	tShared := b.Shared / perCycle * sharedBytesPerCycleMax / c.L1GBs
	ceil := func(n, t, fallback float64) levelCeiling {
		if t == 0 {
			return levelCeiling{fallback, 0}
		}
		return levelCeiling{n / t, n}
	}
	return [3]levelCeiling{
		ceil(b.L1+b.Shared+b.L2+b.DRAM, tL1+tShared+tL2+tDRAM, c.L1GBs),
		ceil(b.L2+b.DRAM, tL2+tDRAM, c.L2GBs),
		ceil(b.DRAM, tDRAM, c.DRAMGBs),
	}
}

// roofline is min(BWceil·OI, Perfceil) in GFlop/s with OI = flops/N⁺.
func (p Profile) roofline(c Ceilings, l levelCeiling) float64 {
	perfCeil := p.ActiveThreadsPerInstr / 32 * p.perfMix(c)
	if l.bytes == 0 {
		return perfCeil
	}
	return math.Min(l.bw*p.Flops/l.bytes, perfCeil)
}

// perfMix weights the FMA peak and the ADD/MUL peak, taken as half the FMA
// peak (one flop per lane and cycle instead of two), by the instruction mix.
func (p Profile) perfMix(c Ceilings) float64 {
	n := p.FMAInstr + p.AddMulInstr
	if n == 0 {
		return c.PerfGFlops
	}
	return (c.PerfGFlops*p.FMAInstr + c.PerfGFlops/2*p.AddMulInstr) / n
}
