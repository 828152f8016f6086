package reservation

import (
	"testing"

	container "google.golang.org/api/container/v1"
)

// TargetOf parses a block, a sub-block and a path it does not know, and
// inBlock takes a block's name alone or qualified by its reservation.
func TestTargetOf(t *testing.T) {
	t.Parallel()
	pool := func(values ...string) *container.NodePool {
		return &container.NodePool{Config: &container.NodeConfig{ReservationAffinity: &container.ReservationAffinity{Values: values}}}
	}
	for name, tc := range map[string]struct {
		pool *container.NodePool
		want PoolTarget
	}{
		"no config":   {&container.NodePool{}, PoolTarget{}},
		"no values":   {pool(), PoolTarget{}},
		"block":       {pool("projects/p/reservations/r/reservationBlocks/b"), PoolTarget{Set: true, Path: "projects/p/reservations/r/reservationBlocks/b", Parsed: true, Project: "p", Reservation: "r", Block: "b"}},
		"sub-block":   {pool("projects/p/reservations/r/reservationBlocks/b/reservationSubBlocks/s", "other"), PoolTarget{Set: true, Path: "projects/p/reservations/r/reservationBlocks/b/reservationSubBlocks/s", Parsed: true, Project: "p", Reservation: "r", Block: "b", SubBlock: "s"}},
		"reservation": {pool("projects/p/reservations/r"), PoolTarget{Set: true, Path: "projects/p/reservations/r"}},
	} {
		if got := TargetOf(tc.pool); got != tc.want {
			t.Errorf("%s: TargetOf = %+v, want %+v", name, got, tc.want)
		}
	}
	sub := TargetOf(pool("projects/p/reservations/r/reservationBlocks/b/reservationSubBlocks/s"))
	for block, want := range map[string]bool{"b": true, "r/b": true, "other/b": false, "c": false, "r/c": false} {
		if got := sub.InBlock(block); got != want {
			t.Errorf("inBlock(%q) = %v, want %v", block, got, want)
		}
	}
}
