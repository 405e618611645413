package footprint

import "sync"

// CountMemo shares the granule counts of unions of progressions between
// the engines of many estimates: the estimates of a sweep, or the requests
// a long-lived process answers. It is safe for concurrent use.
//
// Sharing is exact: a count is remembered by its granularity and by the
// union itself, up to a shift by whole granules (counter.key), and the
// granules of a union depend on nothing else, neither on the kernel nor
// on the launch or the device whose estimate counted it first. An
// estimate that finds a count here charges its budget the work that count
// took when it was counted, so that its bound still bounds about the work
// it would do alone.
type CountMemo struct {
	mu     sync.RWMutex
	byGran map[int64]map[string]sharedCount
	bytes  int64 // held by the keys, sharedCountOverhead included
}

// sharedCount is one remembered count: the granules of a union and the
// budget units its counting spent.
type sharedCount struct {
	granules, work int64
}

// maxSharedCountBytes bounds the memory of a CountMemo's counts: when a
// new one would take it past this, it forgets them all and starts again.
const maxSharedCountBytes = 32 << 20

// sharedCountOverhead is about what a count takes beside its key's bytes:
// the map entry, the string header and the count.
const sharedCountOverhead = 64

// NewCountMemo returns an empty memory.
func NewCountMemo() *CountMemo {
	return &CountMemo{byGran: map[int64]map[string]sharedCount{}}
}

// lookup returns the count of the union of key at granules of gran bytes,
// and whether m holds it; a nil m holds none.
func (m *CountMemo) lookup(gran int64, key []byte) (sharedCount, bool) {
	if m == nil {
		return sharedCount{}, false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	c, ok := m.byGran[gran][string(key)]
	return c, ok
}

// record remembers c as the count of the union of key at granules of gran
// bytes; a nil m remembers nothing.
func (m *CountMemo) record(gran int64, key []byte, c sharedCount) {
	if m == nil {
		return
	}
	size := int64(len(key)) + sharedCountOverhead
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bytes+size > maxSharedCountBytes {
		m.byGran, m.bytes = map[int64]map[string]sharedCount{}, 0
	}
	counts := m.byGran[gran]
	if counts == nil {
		counts = map[string]sharedCount{}
		m.byGran[gran] = counts
	}
	if _, ok := counts[string(key)]; !ok {
		m.bytes += size
	}
	counts[string(key)] = c
}
