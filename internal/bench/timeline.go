package bench

import (
	"cmp"
	"slices"
	"time"
)

// span is one RPC the provider served: its kind (with the type name of
// resources and data sources) and when it began and ended.
type span struct {
	rpc        string
	start, end time.Time
}

// RPCPhase is when, in a command, the provider served one kind of RPC:
// from the first call's start to the last one's end, in milliseconds from
// the command's start, how long calls of it were in flight, summed, and
// how long the call that began first took (the one that waits for what
// the process reads once, such as the first list of the nodes).
type RPCPhase struct {
	RPC         string  `json:"rpc"`
	Calls       int     `json:"calls"`
	StartMs     float64 `json:"startMs"`
	EndMs       float64 `json:"endMs"`
	BusyMs      float64 `json:"busyMs"`
	FirstCallMs float64 `json:"firstCallMs"`
}

// phases sums spans by kind, in the order each kind first started,
// relative to began.
func phases(spans []span, began time.Time) []RPCPhase {
	byRPC := map[string]*RPCPhase{}
	var out []*RPCPhase
	for _, s := range spans {
		p := byRPC[s.rpc]
		if p == nil {
			p = &RPCPhase{RPC: s.rpc, StartMs: ms(s.start.Sub(began)), EndMs: ms(s.end.Sub(began)), FirstCallMs: ms(s.end.Sub(s.start))}
			byRPC[s.rpc] = p
			out = append(out, p)
		}
		p.Calls++
		if start := ms(s.start.Sub(began)); start < p.StartMs {
			p.StartMs, p.FirstCallMs = start, ms(s.end.Sub(s.start))
		}
		p.EndMs = max(p.EndMs, ms(s.end.Sub(began)))
		p.BusyMs += ms(s.end.Sub(s.start))
	}
	slices.SortStableFunc(out, func(a, b *RPCPhase) int { return cmp.Compare(a.StartMs, b.StartMs) })
	res := make([]RPCPhase, len(out))
	for i, p := range out {
		res[i] = *p
	}
	return res
}
