package racetest

import (
	"context"
	"errors"
)

func burstH2(ctx context.Context, p *Probe, r request) (burst, []string, error) {
	return burst{}, nil, errors.New("h2 not yet")
}
