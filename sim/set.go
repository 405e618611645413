package sim

// granuleSet is a set of granule numbers (address >> granule shift) by open
// addressing with linear probing, for the compulsory counts. Key 0 marks an
// empty entry; every address the simulator forms lies above the first
// region base (see regionBase), so granule numbers are never 0.
type granuleSet struct {
	keys []uint64
	bits uint // log2(len(keys))
	n    int
}

func newGranuleSet() granuleSet {
	var s granuleSet
	s.init(1 << 10)
	return s
}

func (s *granuleSet) init(size int) {
	s.keys = make([]uint64, size)
	s.bits = 0
	for 1<<s.bits < size {
		s.bits++
	}
	s.n = 0
}

// add inserts g and reports whether it was absent.
func (s *granuleSet) add(g uint64) bool {
	if 2*(s.n+1) > len(s.keys) {
		old := s.keys
		s.init(2 * len(old))
		for _, k := range old {
			if k != 0 {
				s.add(k)
			}
		}
	}
	mask := uint64(len(s.keys) - 1)
	for i := (g * 0x9e3779b97f4a7c15) >> (64 - s.bits); ; i = (i + 1) & mask {
		switch s.keys[i] {
		case g:
			return false
		case 0:
			s.keys[i] = g
			s.n++
			return true
		}
	}
}

// clear empties the set, keeping its storage.
func (s *granuleSet) clear() {
	if s.n > 0 {
		clear(s.keys)
		s.n = 0
	}
}
