package kernel

// Progress is where an object whose create did not return stands: one
// rule for node pools and slices, which the handlers apply without
// deciding on states themselves.
type Progress struct {
	// State is the object's status (a pool) or state (a slice), as the
	// API reports it; empty when not reported yet.
	State string
	// CanFinish: the object may still become usable without being
	// recreated, so an interrupted create records it untainted and the next
	// apply waits for it.
	CanFinish bool
	// Waiting: it has not finished yet; the next plan shows an update that
	// waits for it, within the create timeout.
	Waiting bool
}

// Describe is the state for a message.
func (p Progress) Describe() string {
	if p.State == "" {
		return "state not yet reported"
	}
	return p.State
}
