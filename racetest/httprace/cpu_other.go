//go:build !linux

package httprace

import "errors"

func pinToOneCPU() (int, func(), error) {
	return 0, func() {}, errors.New("pinning the probe to one CPU is done on Linux only")
}
