package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// blockListing is a fake Compute that also lists a reservation's blocks.
type blockListing struct {
	*enginetest.Compute
	blocks []string
	err    error
}

func (b blockListing) ListReservationBlocks(context.Context, string, string, string) ([]string, error) {
	return b.blocks, b.err
}

// A reservation block that is not found is reported with the blocks the
// reservation has, when the Compute client can list them.
func TestUnknownBlockNamesTheBlocks(t *testing.T) {
	t.Parallel()
	target := reservation.Target{Project: enginetest.Project, Zone: enginetest.Zone, Reservation: enginetest.Reservation, Block: "block-9"}
	for _, tc := range []struct {
		compute kernel.Compute
		want    string
	}{
		{blockListing{enginetest.NewCompute().WithFixtureBlock(), []string{"block-2", "block-1"}, nil},
			`reservation block "block-9" was not found in reservation "res" (projects/proj/zones/us-central1-a); its blocks are: block-1, block-2`},
		{blockListing{enginetest.NewCompute().WithFixtureBlock(), nil, nil}, `was not found in reservation "res" (projects/proj/zones/us-central1-a); it has no blocks`},
		{blockListing{enginetest.NewCompute().WithFixtureBlock(), nil, errors.New("backend error")}, `was not found in reservation "res" (projects/proj/zones/us-central1-a)`},
	} {
		e := newEngineOver(tc.compute, enginetest.NewGKE(), nil)
		_, err := e.res.CheckTarget(t.Context(), target, "")
		testsupport.WantContains(t, err, tc.want)
	}
}
