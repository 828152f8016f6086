package reservation

import (
	"regexp"
	"strings"

	container "google.golang.org/api/container/v1"
)

// reservationPathRE parses a reservation target: projects/P/reservations/
// R/reservationBlocks/B, with /reservationSubBlocks/S for a sub-block.
var reservationPathRE = regexp.MustCompile(`^projects/([^/]+)/reservations/([^/]+)/reservationBlocks/([^/]+)(?:/reservationSubBlocks/([^/]+))?$`)

// PoolTarget is a node pool's reservation target: the first value of its
// reservation affinity, and its parts when it names a reservation block
// or sub-block.
type PoolTarget struct {
	// Set says whether the pool has a reservation affinity with a value;
	// Path is that first value as GKE holds it.
	Set  bool
	Path string
	// Parsed is set when Path names a reservation block or sub-block;
	// Project, Reservation, Block and SubBlock are then its parts
	// (SubBlock "" for a block).
	Parsed                                bool
	Project, Reservation, Block, SubBlock string
}

// TargetOf is the reservation target of the pool p. It is the one parser
// of a pool's reservation target.
func TargetOf(p *container.NodePool) PoolTarget {
	values := affinityValues(p)
	if len(values) == 0 {
		return PoolTarget{}
	}
	t := PoolTarget{Set: true, Path: values[0]}
	if m := reservationPathRE.FindStringSubmatch(t.Path); m != nil {
		t.Parsed = true
		t.Project, t.Reservation, t.Block, t.SubBlock = m[1], m[2], m[3], m[4]
	}
	return t
}

// affinityValues is every value of the pool's reservation affinity, or
// nil when it has none.
func affinityValues(p *container.NodePool) []string {
	if p == nil || p.Config == nil || p.Config.ReservationAffinity == nil {
		return nil
	}
	return p.Config.ReservationAffinity.Values
}

// InBlock says whether the target is on the reservation block named
// block, "block" or "reservation/block".
func (t PoolTarget) InBlock(block string) bool {
	reservation, name, qualified := strings.Cut(block, "/")
	if !qualified {
		name, reservation = reservation, ""
	}
	return t.Parsed && t.Block == name && (reservation == "" || t.Reservation == reservation)
}
