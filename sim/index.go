package sim

// lineIndex maps line addresses to the slots of a tag store by open
// addressing with linear probing. An entry holds 32 bits of the line's hash,
// whose top bits are also its home bucket, and the slot number plus one
// (0 marks an empty entry); a hash match is confirmed against the slot's
// line. Entries of 8 bytes keep the index of a whole cache small enough to
// stay in the host's caches. Deletion shifts later entries of the probe run
// back, so no tombstones accumulate.
type lineIndex struct {
	entries []indexEntry
	bits    uint // log2(len(entries))
	n       int
}

type indexEntry struct {
	hash  uint32
	slot1 int32 // slot + 1; 0: empty
}

func hash32(line uint64) uint32 { return uint32((line * 0x9e3779b97f4a7c15) >> 32) }

// newLineIndex returns an index that holds lines entries without growing,
// at a load factor of at most 3/4.
func newLineIndex(lines int) lineIndex {
	var x lineIndex
	x.init(lines)
	return x
}

func (x *lineIndex) init(lines int) {
	x.bits = 4
	for 3<<x.bits < 4*lines {
		x.bits++
	}
	x.entries = make([]indexEntry, 1<<x.bits)
	x.n = 0
}

func (x *lineIndex) home(hash uint32) uint32 { return hash >> (32 - x.bits) }

// get returns the slot of slots that holds line, or −1.
func (x *lineIndex) get(line uint64, slots []slot) int32 {
	h := hash32(line)
	mask := uint32(len(x.entries) - 1)
	for i := x.home(h); ; i = (i + 1) & mask {
		e := x.entries[i]
		if e.slot1 == 0 {
			return -1
		}
		if e.hash == h && slots[e.slot1-1].line == line {
			return e.slot1 - 1
		}
	}
}

// put records that slot s holds line, which must not be indexed yet.
func (x *lineIndex) put(line uint64, s int32) {
	if 4*(x.n+1) > 3*len(x.entries) {
		x.grow()
	}
	x.insert(indexEntry{hash32(line), s + 1})
}

func (x *lineIndex) insert(e indexEntry) {
	mask := uint32(len(x.entries) - 1)
	i := x.home(e.hash)
	for x.entries[i].slot1 != 0 {
		i = (i + 1) & mask
	}
	x.entries[i] = e
	x.n++
}

// remove deletes the entry of slot s, which holds line.
func (x *lineIndex) remove(line uint64, s int32) {
	mask := uint32(len(x.entries) - 1)
	i := x.home(hash32(line))
	for x.entries[i].slot1 != s+1 {
		i = (i + 1) & mask
	}
	// Close the gap: move back every later entry of the run whose home does
	// not lie cyclically in (i, j].
	for j := (i + 1) & mask; x.entries[j].slot1 != 0; j = (j + 1) & mask {
		h := x.home(x.entries[j].hash)
		if (j-h)&mask >= (j-i)&mask {
			x.entries[i] = x.entries[j]
			i = j
		}
	}
	x.entries[i] = indexEntry{}
	x.n--
}

func (x *lineIndex) grow() {
	old := x.entries
	x.init(len(old))
	for _, e := range old {
		if e.slot1 != 0 {
			x.insert(e)
		}
	}
}
