package kernel

import (
	"slices"
	"testing"
	"time"
)

func TestPollCadence(t *testing.T) {
	t.Parallel()
	seq := func(c *pollCadence, n int) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = c.Next()
		}
		return out
	}
	ms := time.Millisecond
	// No cue: back off from 250 ms, doubling to 5 s (zero bounds, a
	// Waiter{}, mean 250 ms and 5 s).
	if got, want := seq(newPollCadence(0, 0, false), 7), []time.Duration{250 * ms, 500 * ms, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("without a cue: %v, want %v", got, want)
	}
	// Awaiting the nodes: slow polls (15 s doubling to 60 s) until the
	// cue, then backing off from 250 ms.
	c := newPollCadence(0, 0, true)
	if got, want := seq(c, 4), []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, time.Minute}; !slices.Equal(got, want) {
		t.Errorf("awaiting the cue: %v, want %v", got, want)
	}
	c.Cue()
	if got, want := seq(c, 3), []time.Duration{250 * ms, 500 * ms, time.Second}; !slices.Equal(got, want) {
		t.Errorf("after the cue: %v, want %v", got, want)
	}
	// The bounds scale the slow polls.
	if got, want := seq(newPollCadence(ms, 10*ms, true), 3), []time.Duration{30 * ms, 60 * ms, 120 * ms}; !slices.Equal(got, want) {
		t.Errorf("slow polls of a 10 ms ceiling: %v, want %v", got, want)
	}
}
