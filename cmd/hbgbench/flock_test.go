package main

import (
	"os"
	"syscall"
)

// flock takes f's exclusive lock as a campaign does.
func flock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }
