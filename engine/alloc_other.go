//go:build !linux

package engine

import "sync/atomic"

func allocWords(n int) ([]atomic.Uint64, func()) { return make([]atomic.Uint64, n), nil }
