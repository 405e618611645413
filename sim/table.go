package sim

// table is an open-addressing hash table with linear probing from uint64 keys
// to int32 values. Key 0 marks an empty slot, so callers never store key 0;
// every address the simulator forms lies above the first address region (see
// regionBase), so line and sector numbers are never 0. Deletion shifts later
// entries of the probe run back, so no tombstones accumulate.
type table struct {
	keys  []uint64
	vals  []int32
	mask  uint64
	shift uint // 64 − log2(len(keys))
	n     int
}

// newTable returns a table that holds capacity entries without growing.
func newTable(capacity int) table {
	var t table
	t.init(capacity)
	return t
}

func (t *table) init(capacity int) {
	size, bits := 16, uint(4)
	for size < 2*capacity {
		size, bits = size*2, bits+1
	}
	t.keys = make([]uint64, size)
	t.vals = make([]int32, size)
	t.mask = uint64(size - 1)
	t.shift = 64 - bits
	t.n = 0
}

func (t *table) home(key uint64) uint64 { return (key * 0x9e3779b97f4a7c15) >> t.shift }

// get returns the value stored under key, or −1.
func (t *table) get(key uint64) int32 {
	for i := t.home(key); ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case key:
			return t.vals[i]
		case 0:
			return -1
		}
	}
}

// put stores value under key, which must not be present yet.
func (t *table) put(key uint64, value int32) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	i := t.home(key)
	for t.keys[i] != 0 {
		i = (i + 1) & t.mask
	}
	t.keys[i], t.vals[i] = key, value
	t.n++
}

// add inserts key with value 0 and reports whether it was absent; the table
// then serves as a set.
func (t *table) add(key uint64) bool {
	if t.get(key) >= 0 {
		return false
	}
	t.put(key, 0)
	return true
}

// remove deletes key, which must be present.
func (t *table) remove(key uint64) {
	i := t.home(key)
	for t.keys[i] != key {
		i = (i + 1) & t.mask
	}
	// Close the gap: move back every later entry of the run whose home does
	// not lie cyclically in (i, j].
	for j := (i + 1) & t.mask; t.keys[j] != 0; j = (j + 1) & t.mask {
		h := t.home(t.keys[j])
		if (j-h)&t.mask >= (j-i)&t.mask {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
		}
	}
	t.keys[i] = 0
	t.n--
}

// clear empties the table, keeping its storage.
func (t *table) clear() {
	if t.n > 0 {
		clear(t.keys)
		t.n = 0
	}
}

func (t *table) grow() {
	keys, vals := t.keys, t.vals
	t.init(len(keys))
	for i, k := range keys {
		if k != 0 {
			t.put(k, vals[i])
		}
	}
}
