package layercond

import (
	"slices"
	"strings"
	"testing"
)

func TestParseSweep(t *testing.T) {
	cases := []struct {
		spec string
		want []int64
	}{
		// 64·1.25^i rounded: 64, 80, 100, 125, 156.25, 195.3, 244.1, 305.2, 381.5 …
		{"64:400:x1.25", []int64{64, 80, 100, 125, 156, 195, 244, 305, 381}},
		{"64:512:x2", []int64{64, 128, 256, 512}},
		{"256:1024:+256", []int64{256, 512, 768, 1024}},
		{"256:1000:+256", []int64{256, 512, 768}},
		{"100:10000:3", []int64{100, 1000, 10000}},
		{"100:10000:1", []int64{100}},
		{"7:7:x2", []int64{7}},
		{"300, 100,200,100", []int64{100, 200, 300}},
		{"381", []int64{381}},
	}
	for _, c := range cases {
		got, err := ParseSweep(c.spec, MaxSweepSizes)
		if err != nil {
			t.Errorf("ParseSweep(%q): %v", c.spec, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ParseSweep(%q) = %v, want %v", c.spec, got, c.want)
		}
	}
}

// TestDefaultSweep checks the default series: 25 sizes, the last 64·1.25^24 =
// 13552.5 rounded, and the paper's sequential bound 381 among them.
func TestDefaultSweep(t *testing.T) {
	got, err := ParseSweep(DefaultSweep, MaxSweepSizes)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 25 || got[0] != 64 || got[24] != 13553 || !slices.Contains(got, 381) {
		t.Errorf("default sweep %v: want 25 sizes 64 … 13553 including 381", got)
	}
}

func TestParseSweepErrors(t *testing.T) {
	cases := map[string]string{
		"":              "empty",
		"0:10:x2":       `size "0"`,
		"10:5:x2":       "below start",
		"1:10:x1":       "F > 1",
		"1:10:xa":       "F > 1",
		"1:10:+0":       "S ≥ 1",
		"1:10:0":        "expected xF",
		"1:10:q":        "expected xF",
		"a,b":           `size "a"`,
		"1,-2":          `size "-2"`,
		"1:2:3:4":       "three parts",
		"1:100000:+1":   "100000 sizes, more than the 1000 allowed",
		"1:100000:5000": "5000 sizes, more than the 1000 allowed",
		// ln(16384/64)/ln(1.0000001) = 55451777.5 steps, counted before
		// rounding merges all but a few thousand sizes.
		"64:16384:x1.0000001":            "55451778 sizes, more than the 1000 allowed",
		"1:1000:x1.001":                  "6912 sizes, more than the 1000 allowed",
		"1" + strings.Repeat(",1", 1000): "1001 sizes, more than the 1000 allowed",
	}
	for spec, want := range cases {
		_, err := ParseSweep(spec, MaxSweepSizes)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSweep(%q) = %v, want an error containing %q", spec, err, want)
		}
	}
}

// TestParseSweepBound checks that the bound counts the sizes a form asks for,
// at the bound and one above it, for each form.
func TestParseSweepBound(t *testing.T) {
	for spec, n := range map[string]int{"1:10:+1": 10, "1:1024:x2": 11, "1:100:7": 7, "5,6,7,8": 4} {
		if got, err := ParseSweep(spec, n); err != nil || len(got) != n {
			t.Errorf("ParseSweep(%q, %d) = %v, %v; want %d sizes", spec, n, got, err, n)
		}
		if _, err := ParseSweep(spec, n-1); err == nil || !strings.Contains(err.Error(), "more than the") {
			t.Errorf("ParseSweep(%q, %d) = %v, want the error of too many sizes", spec, n-1, err)
		}
	}
}

// TestSeriesDomain checks the domains of the three series by hand: about
// Total points each, rounded down, at least one row or layer.
func TestSeriesDomain(t *testing.T) {
	cases := []struct {
		series Series
		s      int64
		want   [3]int64
		text   string
	}{
		{Series{3, PaperTotal, 0}, 512, [3]int64{512, 512, 2048}, "s x s x z with z = 2^29/s^2"}, // 2^29 / 2^18
		{Series{3, PaperTotal, 0}, 1664, [3]int64{1664, 1664, 193}, ""},                          // 536870912 / 2768896 = 193.9
		{Series{3, PaperTotal, 0}, 16384, [3]int64{16384, 16384, 2}, ""},
		{Series{3, PaperTotal, 0}, 65536, [3]int64{65536, 65536, 1}, ""}, // at least one layer
		{Series{3, PaperTotal, 512}, 1024, [3]int64{512, 1024, 1024}, "512 x s x z with z = 2^29/(512 s)"},
		{Series{3, PaperTotal, 512}, 3000, [3]int64{512, 3000, 349}, ""}, // 1048576 / 3000 = 349.5
		{Series{2, PaperTotal, 0}, 4096, [3]int64{4096, 131072, 1}, "s x y with y = 2^29/s"},
		{Series{2, 1000, 0}, 3, [3]int64{3, 333, 1}, ""},
		{Series{2, 1000, 0}, 2000, [3]int64{2000, 1, 1}, ""}, // at least one row
	}
	for _, c := range cases {
		if got := c.series.Domain(c.s); got != c.want {
			t.Errorf("%+v.Domain(%d) = %v, want %v", c.series, c.s, got, c.want)
		}
		if got := c.series.Text(); c.text != "" && got != c.text {
			t.Errorf("%+v.Text() = %q, want %q", c.series, got, c.text)
		}
	}
}

// TestTotalText checks the 2^k form of a power-of-two series total and the
// decimal form of the others.
func TestTotalText(t *testing.T) {
	for n, want := range map[int64]string{PaperTotal: "2^29", 1: "2^0", 1000: "1000", 3 << 20: "3145728", 0: "0"} {
		if got := TotalText(n); got != want {
			t.Errorf("TotalText(%d) = %q, want %q", n, got, want)
		}
	}
}
