package kerneltest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/polyvol/polyvol/kernel"
)

// StepsCase is a random kernel with a state advanced over several time
// steps per launch, described by what the counts need: the coordinates
// its fields index, their load offsets, and the launch.
type StepsCase struct {
	Dims    int
	Domain  [3]int64
	State   StepsField   // staged, the state
	Staged  *StepsField  // another staged field, or nil
	Global  []StepsField // unstaged fields read at every step
	Element int64        // the store's and the state's element size
	L       kernel.Launch
	// Extent and Offset are those of the loaded arrays; a nil Extent
	// stands for StepsMargin elements beyond the domain on each side.
	Extent []int64
	Offset int64
}

// StepsField is one loaded field of a StepsCase: its name, element size,
// load offsets per coordinate and copy mapping where it is staged.
type StepsField struct {
	Name    string
	Element int64
	Offsets [][3]int64
	Copy    string
}

// StepsMargin is the elements every array holds beyond the domain on each
// side: more than a tile grows for the largest halo and steps drawn.
const StepsMargin = 16

// RandomStepsCase draws a kernel of 1 to 3 dimensions over a small
// domain: a staged state whose loads (a star of random reach up to 2 per
// side) include the point, now and then another staged field of 1 to 3
// loads, none to three unstaged fields of one load within 2 of the point
// (a step region counted as a kernel of its own keeps its points'
// conditions, which keep the counter from merging loads of a thread's
// points as the simulator does where they coincide; one load per field
// never does), a store of the state's next value, and a launch of 2 to 4
// steps with a random block (x not always a multiple of 32), fold and
// tiling.
func RandomStepsCase(rng *rand.Rand) StepsCase {
	c := StepsCase{Dims: 1 + rng.IntN(3), Domain: [3]int64{1 + rng.Int64N(60), 1, 1}}
	if c.Dims >= 2 {
		c.Domain[1] = 1 + rng.Int64N(10)
	}
	if c.Dims == 3 {
		c.Domain[2] = 1 + rng.Int64N(4)
	}
	elements := []int64{4, 8}
	copies := []string{"rows", "block"}
	c.Element = elements[rng.IntN(2)]
	c.State = StepsField{Name: "s", Element: c.Element, Offsets: [][3]int64{{}}, Copy: copies[rng.IntN(2)]}
	for d := range c.Dims {
		for _, side := range []int64{-1, 1} {
			if reach := rng.Int64N(3); reach > 0 {
				var o [3]int64
				o[d] = side * reach
				c.State.Offsets = append(c.State.Offsets, o)
			}
		}
	}
	randomLoads := func(name string, loads int) StepsField {
		f := StepsField{Name: name, Element: elements[rng.IntN(2)]}
		for range loads {
			var o [3]int64
			for d := range c.Dims {
				o[d] = rng.Int64N(5) - 2
			}
			f.Offsets = append(f.Offsets, o)
		}
		return f
	}
	if rng.IntN(3) == 0 {
		f := randomLoads("v", 1+rng.IntN(3))
		f.Copy = copies[rng.IntN(2)]
		c.Staged = &f
	}
	for i := range rng.IntN(4) {
		c.Global = append(c.Global, randomLoads(fmt.Sprintf("u%d", i), 1))
	}
	c.L = kernel.Launch{Domain: c.Domain, Fold: kernel.NoFold, Tiling: kernel.Tiling(rng.IntN(2)), Steps: 2 + rng.Int64N(3)}
	c.L.Block = [3]int64{[]int64{1, 7, 16, 32, 33}[rng.IntN(5)], 1, 1}
	for d := range c.Dims {
		if d > 0 {
			c.L.Block[d] = 1 + rng.Int64N(4)
		}
		if rng.IntN(3) == 0 {
			c.L.Fold[d] = min(c.Domain[d], 1+rng.Int64N(2))
		}
	}
	return c
}

// CoordNames are the lattice coordinates' names in a spec.
var CoordNames = [3]string{"x", "y", "z"}

// IndexText renders the index of a load at offset o from lattice point
// (x, y, z) shifted by shift, over dims coordinates.
func IndexText(dims int, o, shift [3]int64) string {
	parts := make([]string, dims)
	for d := range dims {
		parts[d] = fmt.Sprintf("%s + %d", CoordNames[d], o[d]+shift[d])
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// FieldText renders field f over the case's arrays, its loads shifted by
// shift and, where cond is not empty, under that condition; stage adds
// its stage key.
func (c StepsCase) FieldText(f StepsField, shift [3]int64, cond string, stage bool) string {
	var b strings.Builder
	extent := make([]string, c.Dims)
	offset, stride := c.Offset, int64(1)
	for d := range c.Dims {
		n := c.Domain[d] + 2*StepsMargin
		if c.Extent != nil {
			n = c.Extent[d]
		} else {
			offset += StepsMargin * stride
		}
		extent[d] = fmt.Sprint(n)
		stride *= n
	}
	fmt.Fprintf(&b, "  - name: %s\n    element: %d\n    extent: [%s]\n    offset: %d\n", f.Name, f.Element, strings.Join(extent, ", "), offset)
	if stage {
		fmt.Fprintf(&b, "    stage: {copy: %s}\n", f.Copy)
	}
	b.WriteString("    load:\n")
	for _, o := range f.Offsets {
		at := IndexText(c.Dims, o, shift)
		if cond != "" {
			fmt.Fprintf(&b, "      - {at: %s, if: %q}\n", at, cond)
		} else {
			fmt.Fprintf(&b, "      - %s\n", at)
		}
	}
	return b.String()
}

// spec renders the case's kernel.
func (c StepsCase) Spec() string {
	var b strings.Builder
	domain := make([]string, c.Dims)
	for d := range c.Dims {
		domain[d] = fmt.Sprint(c.Domain[d])
	}
	fmt.Fprintf(&b, "name: steps-random\ndomain: [%s]\nflops: 1\nstate: s\nfields:\n", strings.Join(domain, ", "))
	b.WriteString(c.FieldText(c.State, [3]int64{}, "", true))
	if c.Staged != nil {
		b.WriteString(c.FieldText(*c.Staged, [3]int64{}, "", true))
	}
	for _, f := range c.Global {
		b.WriteString(c.FieldText(f, [3]int64{}, "", false))
	}
	fmt.Fprintf(&b, "  - name: o\n    element: %d\n    extent: [%s]\n    store: [%s]\n", c.Element, strings.Join(domain, ", "), IndexText(c.Dims, [3]int64{}, [3]int64{}))
	return b.String()
}
