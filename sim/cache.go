package sim

import "fmt"

// Policy is a cache replacement policy.
type Policy int

// The replacement policies. Both fill empty ways first.
const (
	// LRU evicts the least recently used line of a set.
	LRU Policy = iota
	// PLRU is tree pseudo-LRU: a binary tree of bits per set points away from
	// the most recently used half at every level, and the victim is found by
	// following the bits from the root. von Buelow et al. (2022) found it to
	// match the L1 of Turing better than LRU.
	PLRU
)

// String returns "lru" or "plru".
func (p Policy) String() string {
	switch p {
	case LRU:
		return "lru"
	case PLRU:
		return "plru"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ParsePolicy parses "lru" or "plru".
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "lru", "":
		return LRU, nil
	case "plru":
		return PLRU, nil
	}
	return 0, fmt.Errorf("unknown replacement policy %q (want lru or plru)", s)
}

// slot is one line frame of a cache: the line it holds, its LRU links and
// its sector state, kept together so that a lookup touches one memory line.
type slot struct {
	line       uint64 // line address (address >> line shift); 0 while empty
	prev, next int32  // LRU list links within the set, most recent first
	valid      uint8  // sectors present (L1) or holding complete data (L2)
	dirty      uint8  // sectors holding stored bytes not yet in DRAM (L2)
}

// tagStore holds the lines of a set-associative cache with their sector
// state and replacement state. Slot s belongs to set s / assoc. An unbounded
// store never evicts: it has one set that grows without limit and keeps no
// replacement state (the infinite caches).
type tagStore struct {
	assoc, sets int
	unbounded   bool
	policy      Policy
	slots       []slot
	index       lineIndex
	filled      []int32 // ways in use per set; ways fill in order
	recent      int32   // slot of the last line found or inserted, a hint for find

	head, tail []int32 // LRU: per set, the most and least recently used slot

	// PLRU: per set, a heap-ordered tree of treeLeaves−1 bits (node 1 is
	// the root); bit true sends the victim search to the right child.
	tree       []bool
	treeLeaves int
}

// newTagStore returns a store of lines lines in sets of assoc ways (assoc =
// 0 or assoc ≥ lines: fully associative), or an unbounded store if lines is 0.
func newTagStore(lines, assoc int, policy Policy) *tagStore {
	if lines == 0 {
		return &tagStore{sets: 1, unbounded: true, index: newLineIndex(1024)}
	}
	if assoc <= 0 || assoc > lines {
		assoc = lines
	}
	t := &tagStore{
		assoc: assoc, sets: lines / assoc, policy: policy,
		slots:  make([]slot, lines),
		index:  newLineIndex(lines),
		filled: make([]int32, lines/assoc),
	}
	switch policy {
	case LRU:
		t.head, t.tail = make([]int32, t.sets), make([]int32, t.sets)
		for s := range t.sets {
			t.head[s], t.tail[s] = -1, -1
		}
	case PLRU:
		t.treeLeaves = 1
		for t.treeLeaves < assoc {
			t.treeLeaves *= 2
		}
		t.tree = make([]bool, t.sets*t.treeLeaves)
	}
	return t
}

// lines returns the number of slots in use.
func (t *tagStore) lines() int { return t.index.n }

// find returns the slot holding line, or −1. Consecutive requests mostly
// hit the same line, so the last slot found is checked before the index.
func (t *tagStore) find(line uint64) int32 {
	if r := t.recent; int(r) < len(t.slots) && t.slots[r].line == line {
		return r
	}
	s := t.index.get(line, t.slots)
	if s >= 0 {
		t.recent = s
	}
	return s
}

// touch records a use of slot s.
func (t *tagStore) touch(s int32) {
	switch {
	case t.unbounded:
	case t.policy == LRU:
		set := t.setOf(s)
		if t.head[set] == s {
			return
		}
		t.unlink(set, s)
		t.pushFront(set, s)
	default:
		set := t.setOf(s)
		way := int(s) - set*t.assoc
		bits := t.tree[set*t.treeLeaves:]
		node, lo, size := 1, 0, t.treeLeaves
		for size > 1 {
			half := size / 2
			right := way >= lo+half
			bits[node] = !right // point the victim search away from way
			node *= 2
			if right {
				node++
				lo += half
			}
			size = half
		}
	}
}

// setOf returns the set of slot s. Fully associative stores, the default,
// have one set, so the division is skipped there.
func (t *tagStore) setOf(s int32) int {
	if t.sets == 1 {
		return 0
	}
	return int(s) / t.assoc
}

// insert places line, which must be absent, into its set with cleared
// sector state and marks it used. If the set was full it evicts a victim,
// whose state the caller receives.
func (t *tagStore) insert(line uint64) (s int32, victim slot, evicted bool) {
	if t.unbounded {
		s = int32(len(t.slots))
		t.slots = append(t.slots, slot{line: line})
		t.index.put(line, s)
		t.recent = s
		return s, slot{}, false
	}
	set := int(line % uint64(t.sets))
	if n := t.filled[set]; int(n) < t.assoc {
		t.filled[set]++
		s = int32(set*t.assoc) + n
		if t.policy == LRU {
			t.pushFront(set, s)
		} else {
			t.touch(s)
		}
	} else {
		s = t.victim(set)
		victim, evicted = t.slots[s], true
		t.index.remove(victim.line, s)
		t.touch(s)
	}
	t.slots[s].line, t.slots[s].valid, t.slots[s].dirty = line, 0, 0
	t.index.put(line, s)
	t.recent = s
	return s, victim, evicted
}

// victim returns the slot the policy evicts next from a full set.
func (t *tagStore) victim(set int) int32 {
	if t.policy == LRU {
		return t.tail[set]
	}
	bits := t.tree[set*t.treeLeaves:]
	node, lo, size := 1, 0, t.treeLeaves
	for size > 1 {
		half := size / 2
		right := bits[node] && lo+half < t.assoc // padding leaves hold no way
		node *= 2
		if right {
			node++
			lo += half
		}
		size = half
	}
	return int32(set*t.assoc + lo)
}

func (t *tagStore) unlink(set int, s int32) {
	p, n := t.slots[s].prev, t.slots[s].next
	if p >= 0 {
		t.slots[p].next = n
	} else {
		t.head[set] = n
	}
	if n >= 0 {
		t.slots[n].prev = p
	} else {
		t.tail[set] = p
	}
}

func (t *tagStore) pushFront(set int, s int32) {
	h := t.head[set]
	t.slots[s].prev, t.slots[s].next = -1, h
	if h >= 0 {
		t.slots[h].prev = s
	} else {
		t.tail[set] = s
	}
	t.head[set] = s
}
