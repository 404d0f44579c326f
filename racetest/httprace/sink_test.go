package httprace

import (
	"context"
	"testing"
	"time"
)

func TestSinkSeesTheReleaseBlock(t *testing.T) {
	rep, err := MeasureSinglePacket(context.Background(), 8, 3, 10*time.Millisecond, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Batches != 3 || rep.BlockBytes == 0 {
		t.Fatalf("report %+v", rep)
	}
	if rep.SingleRead == 0 {
		t.Errorf("no batch of 8 streams arrived in one read on loopback: %+v", rep)
	}
}
