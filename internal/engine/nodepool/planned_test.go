package nodepool

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestPlanned(t *testing.T) {
	t.Parallel()
	var p Planned
	p.Note("np-a", "r/b1")
	p.Note("np-b", "")
	p.Note("np-a", "r/b1")
	p.Note("np-c", "r/b2")
	if got := p.Names(); !slices.Equal(got, []string{"np-a", "np-b", "np-c"}) {
		t.Errorf("Names = %v, want each pool once, in the order noted", got)
	}
	if got := p.Blocks(); !slices.Equal(got, []string{"r/b1", "r/b2"}) {
		t.Errorf("Blocks = %v, want each known block once", got)
	}
	names := p.Names()
	names[0] = "changed"
	if p.Names()[0] != "np-a" {
		t.Error("Names shares its slice with the caller")
	}
}

// A sub-block claimed by one pool of the plan is refused to another,
// naming both; the pool itself may claim it again, and a pool that moves
// to another sub-block frees the one it claimed.
func TestPlannedClaimSubBlock(t *testing.T) {
	t.Parallel()
	var p Planned
	const a1, a2 = "projects/p/reservations/r/reservationBlocks/b/reservationSubBlocks/a1", "projects/p/reservations/r/reservationBlocks/b/reservationSubBlocks/a2"
	if err := p.ClaimSubBlock(a1, "np-1"); err != nil {
		t.Fatal(err)
	}
	if err := p.ClaimSubBlock(a1, "np-1"); err != nil {
		t.Errorf("the pool claiming its sub-block again: %v", err)
	}
	err := p.ClaimSubBlock(a1, "np-2")
	var claimed *SubBlockClaimedError
	if !errors.As(err, &claimed) || claimed.Pool != "np-2" || claimed.Other != "np-1" || claimed.SubBlock != a1 ||
		!strings.Contains(err.Error(), "node pools np-1 and np-2 of this configuration both target reservation sub-block "+a1) ||
		!strings.Contains(err.Error(), "gke_reservation_sub_blocks") {
		t.Fatalf("a second pool on a1: %v; want a SubBlockClaimedError naming np-1", err)
	}
	if err := p.ClaimSubBlock(a2, "np-1"); err != nil {
		t.Fatalf("np-1 moving to a2: %v", err)
	}
	if err := p.ClaimSubBlock(a1, "np-2"); err != nil {
		t.Errorf("a1, freed by np-1: %v", err)
	}
	if err := p.ClaimSubBlock(a2, "np-3"); !errors.As(err, &claimed) || claimed.Other != "np-1" {
		t.Errorf("a2, claimed by np-1: %v", err)
	}
}
