package reservation

import (
	"strings"
	"testing"

	container "google.golang.org/api/container/v1"
)

// A node pool's reservation target, as GKE answers it: no value panics the
// parser, a parsed target's parts hold no slash and print back as the
// path, and InBlock agrees with the parts.
func FuzzTargetOf(f *testing.F) {
	for _, seed := range []string{
		"projects/p/reservations/r/reservationBlocks/b",
		"projects/p/reservations/r/reservationBlocks/b/reservationSubBlocks/s",
		"projects/p/reservations/r", "", "/", "projects//reservations//reservationBlocks/",
		"https://www.googleapis.com/compute/v1/projects/p/reservations/r/reservationBlocks/b",
	} {
		f.Add(seed, "r/b")
	}
	f.Fuzz(func(t *testing.T, value, block string) {
		pool := &container.NodePool{Config: &container.NodeConfig{ReservationAffinity: &container.ReservationAffinity{Values: []string{value}}}}
		target := TargetOf(pool)
		if !target.Set || target.Path != value {
			t.Fatalf("TargetOf(%q) = %+v: the value is lost", value, target)
		}
		if !target.Parsed {
			if target.InBlock(block) {
				t.Fatalf("an unparsed target %q is in block %q", value, block)
			}
			return
		}
		for _, part := range []string{target.Project, target.Reservation, target.Block} {
			if part == "" || strings.Contains(part, "/") {
				t.Fatalf("TargetOf(%q) = %+v: a part is empty or holds a slash", value, target)
			}
		}
		path := "projects/" + target.Project + "/reservations/" + target.Reservation + "/reservationBlocks/" + target.Block
		if target.SubBlock != "" {
			path += "/reservationSubBlocks/" + target.SubBlock
		}
		if path != value {
			t.Fatalf("TargetOf(%q) = %+v, which prints as %q", value, target, path)
		}
		if !target.InBlock(target.Block) || !target.InBlock(target.Reservation+"/"+target.Block) {
			t.Fatalf("%+v is not in its own block", target)
		}
		_ = target.InBlock(block)
	})
}

// A pool with no affinity, or an empty one, has no target.
func TestTargetOfNothing(t *testing.T) {
	t.Parallel()
	for _, p := range []*container.NodePool{nil, {}, {Config: &container.NodeConfig{}},
		{Config: &container.NodeConfig{ReservationAffinity: &container.ReservationAffinity{}}}} {
		if target := TargetOf(p); target.Set || target.Parsed {
			t.Errorf("TargetOf(%+v) = %+v, want none", p, target)
		}
	}
}
