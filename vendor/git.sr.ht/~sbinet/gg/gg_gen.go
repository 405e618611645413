// Copyright ©2023 The gg Authors. All rights reserved.
// Use of this source code is governed by a MIT-style
// license that can be found in the LICENSE file.

//go:build tools

package gg

import (
	_ "github.com/campoy/embedmd" // needed for generating gallery
)
