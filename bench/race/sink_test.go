package main

import (
	"context"
	"testing"
	"time"
)

func TestSinkSeesTheReleaseBlock(t *testing.T) {
	rep, err := measureSinglePacket(context.Background(), 8, 3, 10*time.Millisecond, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.batches != 3 || rep.blockBytes == 0 {
		t.Fatalf("report %+v", rep)
	}
	if rep.singleRead == 0 {
		t.Errorf("no batch of 8 streams arrived in one read on loopback: %+v", rep)
	}
}
