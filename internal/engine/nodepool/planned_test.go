package nodepool

import (
	"slices"
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
