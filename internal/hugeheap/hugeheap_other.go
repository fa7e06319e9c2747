//go:build !linux

package hugeheap

func prepare(int64) bool { return false }
