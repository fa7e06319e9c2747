//go:build !cgo

package runtimeharness

import "errors"

// cgoAvailable reports whether this build has the C model.
const cgoAvailable = false

func glibcVersion() string { return "unknown" }

func runModel(Config, int, uintptr, string, string, bool) (*ModelResult, error) {
	return nil, errors.New("the embedded model needs cgo (build with CGO_ENABLED=1 and gcc)")
}
