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

// tagStore holds the line addresses of a set-associative cache and its
// replacement state; the caches keep their per-line state (sector masks) in
// arrays indexed by the same slot numbers. Slot s belongs to set s / ways.
// An unbounded store never evicts: it has one set that grows without limit
// and keeps no replacement state (the infinite caches).
type tagStore struct {
	ways, sets int
	unbounded  bool
	policy     Policy
	tags       []uint64 // line address per slot
	index      table    // line address → slot
	filled     []int32  // ways in use per set; ways fill in order

	// LRU: a doubly linked list per set, most recent first.
	prev, next []int32
	head, tail []int32

	// PLRU: per set, a heap-ordered tree of treeLeaves−1 bits (node 1 is
	// the root); bit 1 sends the victim search to the right child.
	tree       []bool
	treeLeaves int
}

// newTagStore returns a store of lines lines in sets of ways ways (ways = 0
// or ways ≥ lines: fully associative), or an unbounded store if lines is 0.
func newTagStore(lines, ways int, policy Policy) *tagStore {
	if lines == 0 {
		return &tagStore{sets: 1, unbounded: true, index: newTable(1024)}
	}
	if ways <= 0 || ways > lines {
		ways = lines
	}
	t := &tagStore{
		ways: ways, sets: lines / ways, policy: policy,
		tags:   make([]uint64, lines),
		index:  newTable(lines),
		filled: make([]int32, lines/ways),
	}
	switch policy {
	case LRU:
		t.prev, t.next = make([]int32, lines), make([]int32, lines)
		t.head, t.tail = make([]int32, t.sets), make([]int32, t.sets)
		for s := range t.sets {
			t.head[s], t.tail[s] = -1, -1
		}
	case PLRU:
		t.treeLeaves = 1
		for t.treeLeaves < ways {
			t.treeLeaves *= 2
		}
		t.tree = make([]bool, t.sets*t.treeLeaves)
	}
	return t
}

// lines returns the number of slots in use.
func (t *tagStore) lines() int {
	if t.unbounded {
		return len(t.tags)
	}
	return t.index.n
}

// find returns the slot holding line, or −1.
func (t *tagStore) find(line uint64) int32 { return t.index.get(line) }

// touch records a use of slot.
func (t *tagStore) touch(slot int32) {
	switch {
	case t.unbounded:
	case t.policy == LRU:
		set := int(slot) / t.ways
		if t.head[set] == slot {
			return
		}
		t.unlink(set, slot)
		t.pushFront(set, slot)
	default:
		set := int(slot) / t.ways
		way := int(slot) - set*t.ways
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

// insert places line, which must be absent, into its set and marks it used.
// If the set was full it evicts a victim and reports its line address.
func (t *tagStore) insert(line uint64) (slot int32, victim uint64, evicted bool) {
	if t.unbounded {
		slot = int32(len(t.tags))
		t.tags = append(t.tags, line)
		t.index.put(line, slot)
		return slot, 0, false
	}
	set := int(line % uint64(t.sets))
	if n := t.filled[set]; int(n) < t.ways {
		t.filled[set]++
		slot = int32(set*t.ways) + n
		if t.policy == LRU {
			t.pushFront(set, slot)
		} else {
			t.touch(slot)
		}
	} else {
		slot = t.victim(set)
		victim, evicted = t.tags[slot], true
		t.index.remove(victim)
		t.touch(slot)
	}
	t.tags[slot] = line
	t.index.put(line, slot)
	return slot, victim, evicted
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
		right := bits[node] && lo+half < t.ways // padding leaves hold no way
		node *= 2
		if right {
			node++
			lo += half
		}
		size = half
	}
	return int32(set*t.ways + lo)
}

func (t *tagStore) unlink(set int, slot int32) {
	p, n := t.prev[slot], t.next[slot]
	if p >= 0 {
		t.next[p] = n
	} else {
		t.head[set] = n
	}
	if n >= 0 {
		t.prev[n] = p
	} else {
		t.tail[set] = p
	}
}

func (t *tagStore) pushFront(set int, slot int32) {
	h := t.head[set]
	t.prev[slot], t.next[slot] = -1, h
	if h >= 0 {
		t.prev[h] = slot
	} else {
		t.tail[set] = slot
	}
	t.head[set] = slot
}
