//go:build !linux

package main

import (
	"errors"
	"net"
)

func reusePortListen(int) (net.Listener, error) {
	return nil, errors.New("the prefork target needs SO_REUSEPORT as Linux has it")
}
