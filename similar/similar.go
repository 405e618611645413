// Package similar ranks names by how close they are to a name a user
// typed, for "did you mean" suggestions: devices, commands, flags, flag
// values and example names.
package similar

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Normalize folds a name for matching: lower case, letters and digits only,
// so "NVIDIA A100-SXM4-40GB" and "nvidia a100 sxm4 40gb" are equal. It
// drops ASCII punctuation and Unicode spaces and punctuation; any other
// character (a symbol, a zero-width or replacement character) stays, so
// that it cannot vanish from a name that then matches another.
func Normalize(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			return unicode.ToLower(r)
		case r < utf8.RuneSelf || unicode.IsSpace(r) || unicode.IsPunct(r):
			return -1
		}
		return r
	}, name)
}

// Candidate is one thing to suggest: the Name to show and every name it
// answers to (Name itself included).
type Candidate struct {
	Name  string
	Names []string
}

// Closest returns the names of the n candidates nearest to query, compared
// after Normalize. A candidate's distance is that of its nearest name;
// candidates are ranked by
//
//  1. the edits the query needs to appear inside the name (InfixDistance):
//     0 when the query is part of the name, so "mi250" finds "MI250X";
//  2. then the whole names' edit distance divided by the longer length, so
//     that among equally good matches the closest in length comes first;
//  3. then the name.
//
// A short name inside the query does not count as a match: "A100X" ranks
// "A100" above "H100" although "H100" is one edit from "A100".
func Closest(query string, cands []Candidate, n int) []string {
	q := Normalize(query)
	type scored struct {
		name  string
		infix int
		full  float64
	}
	all := make([]scored, 0, len(cands))
	for _, c := range cands {
		best := scored{name: c.Name, infix: -1}
		for _, name := range c.Names {
			m := Normalize(name)
			s := scored{name: c.Name, infix: InfixDistance(q, m),
				full: float64(EditDistance(q, m)) / float64(max(len(q), len(m), 1))}
			if best.infix < 0 || s.infix < best.infix || s.infix == best.infix && s.full < best.full {
				best = s
			}
		}
		all = append(all, best)
	}
	slices.SortFunc(all, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.infix, b.infix), cmp.Compare(a.full, b.full), cmp.Compare(a.name, b.name))
	})
	out := make([]string, 0, n)
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.name)
	}
	return out
}

// Typos returns the names among names that query may be a typo of, in
// their order: the nearest of those within TypoEdits(query) edits of it
// (compared after Normalize, an adjacent swap counting as one edit), the
// suggestions worth making, none for a word that resembles nothing.
func Typos(query string, names []string) []string {
	q := Normalize(query)
	type scored struct {
		name string
		d    int
	}
	var near []scored
	for _, n := range names {
		if d := SwapEditDistance(q, Normalize(n)); d <= TypoEdits(q) {
			near = append(near, scored{n, d})
		}
	}
	if len(near) == 0 {
		return nil
	}
	least := slices.MinFunc(near, func(a, b scored) int { return cmp.Compare(a.d, b.d) }).d
	var out []string
	for _, s := range near {
		if s.d == least {
			out = append(out, s.name)
		}
	}
	return out
}

// TypoEdits is the most edits a typo of name may have: none for one or two
// letters (any letter is one edit from any other), one for three or four,
// two from five on.
func TypoEdits(name string) int { return min(2, (len(name)-1)/2) }

// DidYouMean returns "; did you mean A or B?" naming the names that query
// may be a typo of (Typos), for the end of an error message, or "" when
// there are none.
func DidYouMean(query string, names []string) string {
	near := Typos(query, names)
	if len(near) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(near, " or ") + "?"
}

// InfixDistance is the least Levenshtein distance in bytes between q and a
// substring of m: the edits q needs to occur in m, 0 when it does.
func InfixDistance(q, m string) int { return slices.Min(lastEditRow(q, m, true, false)) }

// EditDistance is the Levenshtein distance between a and b in bytes.
func EditDistance(a, b string) int { return lastEditRow(a, b, false, false)[len(b)] }

// SwapEditDistance is the edit distance between a and b in bytes that
// counts a swap of two adjacent bytes as one edit, as a typist makes it
// (the optimal string alignment distance): "jsno" is one edit from "json".
func SwapEditDistance(a, b string) int { return lastEditRow(a, b, false, true)[len(b)] }

// lastEditRow returns the last row of the Levenshtein table of a against
// b: entry j is the edits that turn a into b[:j], or, with anyStart, into a
// substring of b ending at j (a match may start anywhere in b for free);
// with swaps, a swap of two adjacent bytes is one edit.
func lastEditRow(a, b string, anyStart, swaps bool) []int {
	before := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		if !anyStart {
			prev[j] = j
		}
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
			if swaps && i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], before[j-2]+1)
			}
		}
		before, prev, cur = prev, cur, before
	}
	return prev
}
