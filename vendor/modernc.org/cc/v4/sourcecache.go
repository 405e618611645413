// Copyright 2026 The CC Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package cc // import "modernc.org/cc/v4"

import (
	"bytes"
	"hash/maphash"
	"sync"
)

const (
	defaultSourceCacheMaxBytes = 64 << 20
	maxSourceCacheMaxBytes     = 1 << 30
)

var sourceCacheSeed = maphash.MakeSeed()

// SourceCache keeps sources scanned and parsed into their preprocessing
// structure for reuse by later translation units, see Config.SourceCache.
// Without it, every translation unit scans and parses again each header it
// includes, even when a thousand translation units before it did the same.
//
// A translation unit reuses a source when it reads one of the same name and
// the same content, byte for byte. It still resolves every #include through
// the search paths and reads every source, so a changed file is never served
// from the cache, and a header added to a directory searched earlier is found.
// A source is kept on its second sighting, so the main files of translation
// units, usually seen once, are not. A source the preprocessor reported errors
// for is not kept either.
//
// The cache works in generations. The translation units of a generation share
// the position information of all files they read, which the tokens of a kept
// source refer to. When it has grown past MaxBytes, the next translation unit
// starts a new, empty generation, and the old one is garbage collected when no
// translation unit or AST refers to it anymore. A kept source takes about ten
// to twenty times its size in memory, more for code with few comments, so a
// generation can hold up to about twenty times MaxBytes, in the worst case
// where every byte it reads is kept.
//
// The zero value is ready to use. A SourceCache is safe for concurrent use by
// multiple goroutines and must not be copied after first use.
type SourceCache struct {
	// MaxBytes bounds the size of a generation: the bytes of all files its
	// translation units read, kept or not. Zero means 64 MiB, the maximum is
	// 1 GiB. Set it before first use.
	MaxBytes int64

	gen *sourceCacheGen
	mu  sync.Mutex
}

// generation returns the generation a new translation unit uses.
func (c *SourceCache) generation() *sourceCacheGen {
	c.mu.Lock()
	defer c.mu.Unlock()

	limit := c.MaxBytes
	switch {
	case limit <= 0:
		limit = defaultSourceCacheMaxBytes
	case limit > maxSourceCacheMaxBytes:
		limit = maxSourceCacheMaxBytes
	}
	if c.gen == nil || c.gen.fset.size() > limit {
		c.gen = &sourceCacheGen{
			fset:    newFset(),
			sources: map[string]*cachedSource{},
			seen:    map[string]uint64{},
		}
	}
	return c.gen
}

// sourceCacheGen is a generation of a SourceCache.
type sourceCacheGen struct {
	fset    *fset                    // Of all translation units using this generation.
	sources map[string]*cachedSource // Kept sources by name.
	seen    map[string]uint64        // Hash of the content of the last sighting of a name.
	mu      sync.Mutex
}

// cachedSource is a kept source. It is read only.
type cachedSource struct {
	g group
	n int            // The length of the content.
	s *scannerSource // s.buf[:n] is the content.
}

// lookup returns the kept group of the source named nm with content buf, if
// any.
func (g *sourceCacheGen) lookup(nm string, buf []byte) group {
	g.mu.Lock()
	e := g.sources[nm]
	g.mu.Unlock()
	if e != nil && bytes.Equal(e.s.buf[:e.n], buf) {
		return e.g
	}

	return nil
}

// offer records a sighting of the source s, named nm, of n bytes of content
// with hash h, parsed into gr without errors. It keeps s on its second
// sighting.
func (g *sourceCacheGen) offer(nm string, h uint64, n int, s *scannerSource, gr group) {
	g.mu.Lock()
	defer g.mu.Unlock()

	if last, ok := g.seen[nm]; !ok || last != h {
		g.seen[nm] = h
		return
	}

	s.shared = true
	g.sources[nm] = &cachedSource{gr, n, s}
}
