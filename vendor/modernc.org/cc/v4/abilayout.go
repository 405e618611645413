// Copyright 2026 The CC Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cc // import "modernc.org/cc/v4"

import (
	"sync"

	"modernc.org/mathutil"
)

// bitFieldRules selects how the C compiler of a target lays out bit-fields,
// see Config.ABILayout.
type bitFieldRules int

const (
	// gcc's PCC_BITFIELD_TYPE_MATTERS rules: a bit-field is allocated at the
	// next free bit unless it would cross more units of its type's alignment
	// than its type has, a zero-width bit-field advances to the next unit of
	// its type's alignment, a named bit-field raises the alignment of the
	// struct or union to that of its type and an unnamed one does not.
	pccBitFields bitFieldRules = iota
	// The PCC rules, but unnamed bit-fields, also zero-width ones, raise the
	// alignment like named ones: the ARM and AArch64 procedure call
	// standards, except on Darwin.
	aapcsBitFields
	// The Microsoft rules as gcc's -mms-bitfields, the MinGW default,
	// applies them: adjacent bit-fields share a unit only when their types
	// have the same size and the unit has room left, a new unit is the size
	// of the type and aligned to it, every bit-field raises the alignment, a
	// zero-width bit-field counts only right after a non-zero-width one.
	msBitFields
	// The Microsoft rules as clang applies them: as msBitFields, but bit-fields
	// do not raise the alignment of a union.
	msClangBitFields
)

func (a *ABI) bitFieldRules() bitFieldRules {
	switch {
	case a.goos == "windows" && a.goarch == "arm64":
		return msClangBitFields
	case a.goos == "windows":
		return msBitFields
	case a.goos != "darwin" && (a.goarch == "arm" || a.goarch == "arm64"):
		return aapcsBitFields
	default:
		return pccBitFields
	}
}

// bitFieldTypeSizeAlign returns the size and alignment of the type of the bit
// field f, at least 1 even for an invalid type, already reported.
func bitFieldTypeSizeAlign(f *Field) (size, align int64) {
	t := f.Type()
	return max(t.Size(), 1), max(int64(t.Align()), 1)
}

func bitMask(bits int64) uint64 {
	if bits >= 64 {
		return ^uint64(0)
	}

	return 1<<bits - 1
}

// bitPos is a bit offset in a struct or union, bytes*8+bits, 0 <= bits < 8. A
// plain count of bits would overflow for objects of 2^60 bytes and more.
type bitPos struct {
	bytes, bits int64
}

// bitsBefore returns the offset n bits, n >= 0, before byte offset bytes.
func bitsBefore(bytes, n int64) bitPos {
	b := (n + 7) / 8
	return bitPos{bytes - b, 8*b - n}
}

// add returns the offset n bits, n >= 0, after p.
func (p bitPos) add(n int64) bitPos {
	n += p.bits
	return bitPos{p.bytes + n/8, n % 8}
}

// ceil returns the number of bytes before p, including a partial one.
func (p bitPos) ceil() int64 {
	if p.bits != 0 {
		return p.bytes + 1
	}

	return p.bytes
}

// roundup returns p rounded up to a multiple of align bytes.
func (p bitPos) roundup(align int64) bitPos {
	return bitPos{roundup(p.ceil(), align), 0}
}

// mod returns p modulo unit bytes, in bits.
func (p bitPos) mod(unit int64) int64 {
	return 8*(p.bytes%unit) + p.bits
}

// setABIBitField places the non-zero-width bit-field f at bit offset pos of
// its struct or union, in allocation order: on big-endian targets bit 0 is
// the most significant bit of byte 0. The access unit must lie within the
// first limit bytes, the size of the struct or union. It is the first of
//
//   - the smallest naturally aligned unit of 1, 2, 4 or 8 bytes, but at most
//     the size of the type, that holds all the bits of f,
//   - the unit of the size of the type at the preceding multiple of the type's
//     alignment, for a long long on i386 that straddles an 8 byte boundary,
//   - the smallest unit of 1, 2, 4 or 8 bytes that holds the bits, at an
//     offset aligned to its size if possible, for a packed bit-field,
//   - the bytes the bits occupy, 3, 5, 6 or 7 of them, for a packed bit-field
//     in a struct or union too small for any of the above.
//
// It reports false when the bits occupy more than 8 bytes, which a packed
// bit-field of more than 56 bits can.
func setABIBitField(f *Field, pos bitPos, limit int64, bigEndian bool) (ok bool) {
	ts, ta := bitFieldTypeSizeAlign(f)
	w := f.ValueBits()
	first, last := pos.bytes, pos.bytes+(pos.bits+w-1)/8
	fits := func(o, s int64) bool { return o >= 0 && o <= first && last < o+s && o+s <= limit }
	var s, o int64
	for s = 1; s <= min(ts, 8); s *= 2 {
		if o = first / s * s; fits(o, s) {
			ok = true
			break
		}
	}
	if !ok {
		if s, o = ts, first/ta*ta; s <= 8 && fits(o, s) {
			ok = true
		}
	}
	if !ok {
	out:
		for s = 1; s <= 8; s *= 2 {
			lo, hi := max(0, last+1-s), min(first, limit-s)
			for x := lo; x <= hi; x++ {
				if o = x; x%s == 0 {
					ok = true
					break out
				}
			}
			if lo <= hi {
				o = hi
				ok = true
				break
			}
		}
	}
	if !ok {
		s, o = last+1-first, first
		ok = s <= 8
	}
	rel := 8*(pos.bytes-o) + pos.bits
	if bigEndian {
		rel = 8*s - rel - w
	}
	f.offsetBytes = o
	f.outerGroupOffsetBytes = o
	f.accessBytes = s
	f.groupSize = int(s)
	f.offsetBits = int(rel)
	f.mask = 0
	if rel >= 0 && rel < 64 {
		f.mask = bitMask(w) << rel
	}
	return ok
}

type abiBitField struct {
	f   *Field
	pos bitPos
}

// setABIZeroWidth records the position of the zero-width bit-field f. It has
// no storage, consumers skip it like before, by InOverlapGroup.
func setABIZeroWidth(f *Field, off int64) {
	f.offsetBytes = off
	f.outerGroupOffsetBytes = off
	f.inOverlapGroup = true
}

func setABIField(f *Field, off, size int64) {
	f.offsetBytes = off
	f.outerGroupOffsetBytes = off
	f.accessBytes = size
	f.groupSize = int(size)
}

// layoutABI lays out fields as the target's C compiler does, see
// Config.ABILayout. packed reports a packed attribute of the struct or union,
// packMax the #pragma pack in effect, 0 for none, defAlign the alignment of
// an aligned attribute of it. It returns the size of the struct or union
// before rounding it up to the alignment, the alignment and the named
// bit-fields for which there is no access unit, see setABIBitField.
func (a *ABI) layoutABI(fields []*Field, union, packed bool, packMax, defAlign int) (size int64, align int, bad []*Field) {
	return a.layout(&abiLayout{packed: packed, packMax: packMax}, fields, union, defAlign)
}

// layout is layoutABI with the packing and the sizes and alignments of the
// member types given by l.
func (a *ABI) layout(l *abiLayout, fields []*Field, union bool, defAlign int) (size int64, align int, bad []*Field) {
	rules := a.bitFieldRules()
	bigEndian := a.isBigEndian()
	l.bigEndian = bigEndian
	if !union {
		for i, f := range fields {
			if ft := f.Type(); (ft.IsIncomplete() || ft.Size() == 0) && ft.Kind() == Array && i == len(fields)-1 {
				switch x := ft.(type) {
				case *ArrayType:
					f.isFlexibleArrayMember = !x.IsVLA()
				default:
					f.isFlexibleArrayMember = true
				}
			}
		}
	}
	switch rules {
	case msBitFields, msClangBitFields:
		size, align = l.layoutMS(fields, union, rules == msBitFields)
	default:
		size, align = l.layoutPCC(fields, union, rules == aapcsBitFields)
	}
	limit := roundup(size, int64(max(align, defAlign)))
	for _, v := range l.bitFields {
		if !setABIBitField(v.f, v.pos, limit, bigEndian) && v.f.Name() != "" {
			bad = append(bad, v.f)
		}
	}
	return size, align, bad
}

type abiLayout struct {
	bitFields []abiBitField // Placed, waiting for their access units.
	bigEndian bool
	packed    bool // __attribute__((packed)) on the struct or union.
	packMax   int  // #pragma pack, 0 for none.
	// The size and alignment of a member type, nil for its Size and Align,
	// see packingLayout.
	typeSizeAlign func(Type) (int64, int)
	unpacked      bool // Ignore packed attributes of members, see packingLayout.
}

// memberPacked reports whether the member f has a packed attribute that
// applies.
func (l *abiLayout) memberPacked(f *Field) bool { return f.packed && !l.unpacked }

func (l *abiLayout) sizeAlign(t Type) (int64, int) {
	if l.typeSizeAlign != nil {
		return l.typeSizeAlign(t)
	}

	return t.Size(), t.Align()
}

func (l *abiLayout) place(f *Field, pos bitPos) {
	l.bitFields = append(l.bitFields, abiBitField{f, pos})
}

// fieldAlign returns the alignment of the non-bit-field f: packed lowers it to
// 1 except for an alignment requested for the member, #pragma pack caps it.
func (l *abiLayout) fieldAlign(f *Field) int {
	_, ta := l.sizeAlign(f.Type())
	fa := max(ta, f.align) // As f.alignment.
	if l.packed || l.memberPacked(f) {
		fa = max(1, f.align)
	}
	if l.packMax > 0 {
		fa = min(fa, l.packMax)
	}
	return fa
}

// bitFieldAlign returns ta, the alignment of the type of the bit-field f, as
// packing lowers it.
func (l *abiLayout) bitFieldAlign(f *Field, ta int64) int64 {
	switch {
	case l.packMax > 0:
		return min(ta, int64(l.packMax))
	case l.packed || l.memberPacked(f):
		return 1
	default:
		return ta
	}
}

func (l *abiLayout) fieldSize(f *Field) int64 {
	if f.isFlexibleArrayMember || isEmpty(f.Type()) {
		return 0
	}

	sz, _ := l.sizeAlign(f.Type())
	return sz
}

func (l *abiLayout) layoutPCC(fields []*Field, union, anonAlign bool) (size int64, align int) {
	align = 1
	var pos bitPos // Next free bit of a struct, size of a union.
	for _, f := range fields {
		if !f.IsBitfield() {
			sz := l.fieldSize(f)
			fa := l.fieldAlign(f)
			align = mathutil.Max(align, fa)
			if union {
				setABIField(f, 0, sz)
				pos.bytes = mathutil.MaxInt64(pos.bytes, sz)
				continue
			}

			pos = pos.roundup(int64(fa))
			setABIField(f, pos.bytes, sz)
			pos.bytes += sz
			continue
		}

		ts, ta := bitFieldTypeSizeAlign(f)
		w := f.ValueBits()
		if w == 0 {
			// Not influenced by packing, not even by #pragma pack.
			if anonAlign {
				align = mathutil.Max(align, int(ta))
			}
			if union {
				setABIZeroWidth(f, 0)
				continue
			}

			pos = pos.roundup(ta)
			setABIZeroWidth(f, pos.bytes)
			continue
		}

		if f.Name() != "" || anonAlign {
			align = mathutil.Max(align, int(l.bitFieldAlign(f, ta)))
		}
		if union {
			l.place(f, bitPos{})
			pos.bytes = mathutil.MaxInt64(pos.bytes, (w+7)/8)
			continue
		}

		// A bit-field may not span more units of its type's alignment than
		// its type has, unless it is packed.
		if unit := 8 * ta; !l.packed && !l.memberPacked(f) && l.packMax == 0 && (pos.mod(ta)+w+unit-1)/unit > 8*ts/unit {
			pos = pos.roundup(ta)
		}
		l.place(f, pos)
		pos = pos.add(w)
	}
	return pos.ceil(), align
}

// packCap returns ta capped by #pragma pack.
func (l *abiLayout) packCap(ta int64) int64 {
	if l.packMax > 0 {
		return min(ta, int64(l.packMax))
	}

	return ta
}

// layoutMS lays out by the Microsoft rules, as MinGW gcc applies them when
// gcc is true, else as clang does. They differ in a union, where a gcc
// bit-field adds the bytes its bits occupy and raises the alignment while a
// clang one adds the size of its type and does not, in that a gcc bit-field
// raises the alignment by itself and a clang one only when it starts a unit,
// in that a gcc zero-width bit-field raises the alignment by its type's
// alignment capped only by #pragma pack, a clang one by its type's alignment,
// and in that clang ignores a packed attribute for bit-fields.
func (l *abiLayout) layoutMS(fields []*Field, union, gcc bool) (size int64, align int) {
	align = 1
	var (
		high      int64 // The size, where it exceeds the next free byte, clang only.
		unitSize  int64 // Size of the current bit-field unit in bytes.
		remaining int64 // Bits left in the current unit.
		inRun     bool  // The previous field is a non-zero-width bit-field.
	)
	defer func() { size = mathutil.MaxInt64(size, high) }()
	for _, f := range fields {
		if !f.IsBitfield() {
			inRun = false
			sz := l.fieldSize(f)
			fa := l.fieldAlign(f)
			align = mathutil.Max(align, fa)
			if union {
				setABIField(f, 0, sz)
				size = mathutil.MaxInt64(size, sz)
				continue
			}

			off := roundup(size, int64(fa))
			setABIField(f, off, sz)
			size = off + sz
			continue
		}

		ts, ta0 := bitFieldTypeSizeAlign(f)
		// For gcc, a packed bit-field goes to the next byte, before #pragma
		// pack caps the alignment, unlike in the PCC rules. clang ignores a
		// packed attribute for bit-fields.
		ta := ta0
		switch {
		case gcc && (l.packed || l.memberPacked(f)):
			ta = 1
		case l.packMax > 0:
			ta = min(ta, int64(l.packMax))
		}
		w := f.ValueBits()
		if w == 0 {
			// Ignored in a union, and in a struct unless it follows a
			// non-zero-width bit-field.
			if union {
				setABIZeroWidth(f, 0)
				continue
			}

			if !inRun {
				setABIZeroWidth(f, size)
				continue
			}

			// It ends the run.
			inRun = false
			switch {
			case gcc:
				// Of the type size of the run it starts no new unit.
				if ts != unitSize {
					size = roundup(size, ta)
				}
				// Even in a packed struct.
				align = mathutil.Max(align, int(l.packCap(ta0)))
			default:
				// Of the type size of the run, it rounds up the first free
				// bit of the run, not the end of its unit, which #pragma pack
				// need not have aligned, so the next member may start inside
				// the unit. Of another type size, it rounds up the end of the
				// unit. #pragma pack does not apply to it.
				switch {
				case ts == unitSize:
					high = mathutil.MaxInt64(high, size)
					size = bitsBefore(size, remaining).roundup(ta0).bytes
				default:
					size = roundup(size, ta0)
				}
				align = mathutil.Max(align, int(ta0))
			}
			setABIZeroWidth(f, size)
			continue
		}

		if gcc {
			align = mathutil.Max(align, int(ta))
		}
		if !union && inRun && unitSize == ts {
			if w <= remaining {
				l.place(f, bitsBefore(size, remaining))
				remaining -= w
				continue
			}

			if gcc {
				// The next unit follows the full one without realignment,
				// which matters after a packed bit-field.
				l.place(f, bitPos{size, 0})
				size += ts
				remaining = 8*ts - w
				continue
			}
		}

		inRun = true
		unitSize = ts
		if union {
			l.place(f, bitPos{})
			switch {
			case gcc:
				size = mathutil.MaxInt64(size, (w+7)/8)
			default:
				size = mathutil.MaxInt64(size, ts)
			}
			continue
		}

		off := roundup(size, ta)
		l.place(f, bitPos{off, 0})
		size = off + ts
		align = mathutil.Max(align, int(ta))
		remaining = 8*ts - w
	}
	return size, align
}

// packingMemo memoizes the packingLayout of a struct or union type, shared by
// the copies of the type.
type packingMemo struct {
	once sync.Once
	r    packingLayout
}

type abiSizeAlign struct {
	size  int64
	align int
}

// packingLayout is the layout of a struct or union, see PackedABILayout.
type packingLayout struct {
	packed     abiSizeAlign // With packing.
	unpacked   abiSizeAlign // Without packing.
	changed    bool         // Packing changes the layout.
	hasPacking bool         // Packing anywhere in the type.
}

// packingLayout returns the layout of n with and without packing, see
// PackedABILayout.
func (n *structType) packingLayout(a *ABI) packingLayout {
	if n.pk == nil {
		return n.packingLayout0(a)
	}

	n.pk.once.Do(func() { n.pk.r = n.packingLayout0(a) })
	return n.pk.r
}

func (n *structType) packingLayout0(a *ABI) (r packingLayout) {
	if len(n.fields) == 0 {
		// As StructDeclarationList.check.
		r.packed = abiSizeAlign{0, 1}
		r.unpacked = r.packed
		return r
	}

	r.hasPacking = n.defPacked || n.packMax > 0
	for _, f := range n.fields {
		if r.hasPacking {
			break
		}

		r.hasPacking = f.packed || a.typeHasPacking(f.Type())
	}
	packed, packedFields := n.layoutCopy(a, true)
	r.packed = packed
	if !r.hasPacking {
		r.unpacked = packed
		return r
	}

	unpacked, unpackedFields := n.layoutCopy(a, false)
	r.unpacked = unpacked
	r.changed = packed != unpacked
	for i := range packedFields {
		p, u := &packedFields[i], &unpackedFields[i]
		switch {
		case r.changed:
			return r
		case p.IsBitfield() && p.ValueBits() == 0:
			// No storage.
		case p.IsBitfield():
			r.changed = p.offsetBytes != u.offsetBytes || p.offsetBits != u.offsetBits || p.accessBytes != u.accessBytes
		default:
			r.changed = p.offsetBytes != u.offsetBytes
		}
	}
	return r
}

// layoutCopy lays out copies of the fields of n as Config.ABILayout does, with
// or without packing, also in the member types.
func (n *structType) layoutCopy(a *ABI, packing bool) (r abiSizeAlign, fields []Field) {
	fields = make([]Field, len(n.fields))
	p := make([]*Field, len(n.fields))
	for i, f := range n.fields {
		fields[i] = *f
		p[i] = &fields[i]
	}
	l := &abiLayout{typeSizeAlign: func(t Type) (int64, int) { return a.packingSizeAlign(t, packing) }}
	switch {
	case packing:
		l.packed, l.packMax = n.defPacked, n.packMax
	default:
		l.unpacked = true
	}
	brk, align, _ := a.layout(l, p, n.isUnion, n.defAlign)
	// As StructDeclarationList.check.
	r.align = max(align, n.defAlign)
	r.size = roundup(brk, int64(r.align))
	return r, fields
}

// packingSizeAlign returns the size and alignment of t as Config.ABILayout
// lays it out, with or without packing. They differ from Size and Align only
// for struct and union types and arrays of them.
func (a *ABI) packingSizeAlign(t Type, packing bool) (size int64, align int) {
	var s *structType
	var attrs *Attributes
	switch x := t.(type) {
	case *StructType:
		if x.forward != nil {
			return a.packingSizeAlign(x.forward.Type(), packing)
		}

		s, attrs = &x.structType, x.attrs
	case *UnionType:
		if x.forward != nil {
			return a.packingSizeAlign(x.forward.Type(), packing)
		}

		s, attrs = &x.structType, x.attrs
	case *ArrayType:
		// As ArrayType.Size and ArrayType.Align.
		es, ea := a.packingSizeAlign(x.Elem(), packing)
		size = -1
		if x.Elem().Kind() != InvalidKind && x.elems >= 0 && es > 0 {
			size = x.elems * es
		}
		if x.attributer.p != nil {
			if v := x.attributer.p.Aligned(); v > 0 {
				ea = int(v)
			}
		}
		return size, ea
	default:
		return t.Size(), t.Align()
	}

	if t.IsIncomplete() {
		return t.Size(), t.Align()
	}

	r := s.packingLayout(a)
	sa := r.unpacked
	if packing {
		sa = r.packed
	}
	// As StructType.Align.
	if attrs != nil {
		if v := attrs.Aligned(); v > 0 {
			sa.align = int(v)
		}
	}
	return sa.size, sa.align
}

// typeHasPacking reports whether t is a struct or union type, or an array of
// them, with packing anywhere in it.
func (a *ABI) typeHasPacking(t Type) bool {
	for {
		x, ok := t.(*ArrayType)
		if !ok {
			break
		}

		t = x.Elem()
	}
	var s *structType
	switch x := t.(type) {
	case *StructType:
		if x.forward != nil {
			return a.typeHasPacking(x.forward.Type())
		}

		s = &x.structType
	case *UnionType:
		if x.forward != nil {
			return a.typeHasPacking(x.forward.Type())
		}

		s = &x.structType
	default:
		return false
	}

	return !t.IsIncomplete() && s.packingLayout(a).hasPacking
}

// PackedABILayout returns the size and alignment of n as Config.ABILayout lays
// it out, also when Config.ABILayout is off: honoring the packed attributes of
// n and its members, the #pragma pack in effect for n, and the same in the
// struct and union types of its members, recursively. Without
// Config.ABILayout, Size and Align ignore packing.
//
// It reports whether packing changes the layout of n, as compared to the
// Config.ABILayout layout with all packing ignored: the size, the alignment,
// or the offset of a member, for a bit-field its bit position and access unit.
// A struct without packing of its own changes when a member type changes in
// size or alignment, for example
//
//	struct p { void *m; } __attribute__((packed));
//	struct r { char c; struct p m; };
//
// where m moves from offset 8 to 1 on 64-bit targets. A packed attribute that
// moves nothing, as in struct { char a, b; } __attribute__((packed)), does not
// change the layout.
//
// For an incomplete n it returns Size, Align and false. PackedABILayout
// memoizes its results.
func (n *StructType) PackedABILayout() (size int64, align int, changed bool) {
	if n.forward != nil {
		return n.forward.Type().(*StructType).PackedABILayout()
	}

	if n.IsIncomplete() {
		return n.Size(), n.Align(), false
	}

	size, align = n.c.ast.ABI.packingSizeAlign(n, true)
	return size, align, n.packingLayout(n.c.ast.ABI).changed
}

// PackedABILayout returns the size and alignment of n as Config.ABILayout lays
// it out and reports whether packing changes the layout of n, see
// StructType.PackedABILayout.
func (n *UnionType) PackedABILayout() (size int64, align int, changed bool) {
	if n.forward != nil {
		return n.forward.Type().(*UnionType).PackedABILayout()
	}

	if n.IsIncomplete() {
		return n.Size(), n.Align(), false
	}

	size, align = n.c.ast.ABI.packingSizeAlign(n, true)
	return size, align, n.packingLayout(n.c.ast.ABI).changed
}
