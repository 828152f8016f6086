package bench

import (
	"errors"
	"fmt"
)

// ErrNoKueue says that a run has no Kueue step to merge.
var ErrNoKueue = errors.New("the run has no Kueue step (gke-bench -steps kueue)")

// KueueRun says where the Kueue step's figures were measured when they
// come from a run of their own (gke-bench -steps kueue), put into the
// figures of another run by MergeKueue.
type KueueRun struct {
	Date    string  `json:"date,omitempty"`
	Command string  `json:"command,omitempty"`
	Runs    int     `json:"runs,omitempty"`
	Machine Machine `json:"machine"`
	// Note is what the run's author said of the conditions (how loaded
	// the machine was), as given to gke-bench -kueue-note.
	Note string `json:"note,omitempty"`
}

// MergeKueue puts the Kueue step of run (a gke-bench -steps kueue run):
// the reservation's slices on demand and the flex-start flavor beside
// them, into r in place of r's own, with where it was measured (the
// machine may not be r's) and note. r's other figures, its date and its
// targets stay as they were (no target reads the Kueue step).
func (r *Report) MergeKueue(run *Report, note string) error {
	if run.Kueue.Runs == 0 {
		return ErrNoKueue
	}
	k := run.Kueue
	if k.Flex != nil {
		flex := *k.Flex
		k.Flex = &flex
	}
	k.Run = &KueueRun{Date: run.Date, Command: run.Command, Runs: k.Runs, Machine: run.Machine, Note: note}
	r.Kueue = k
	return nil
}

// writeKueueRun says where the Kueue step was measured when it comes from
// a run of its own.
func (r *Report) writeKueueRun(w printf) {
	run := r.Kueue.Run
	if run == nil {
		return
	}
	w(" Measured on %s by `%s`, in a run of its own on %s", dateOf(run.Date), run.Command, r.machineOf(run.Machine))
	if run.Note != "" {
		w(" (%s)", run.Note)
	}
	w(".")
}

// machineOf names the machine of a run merged into r's figures: "the same
// machine" when it is r's, its description when it is another, and "a
// machine not recorded" when the run did not record it.
func (r *Report) machineOf(m Machine) string {
	switch m {
	case Machine{}:
		return "a machine not recorded"
	case r.Machine:
		return "the same machine"
	}
	return fmt.Sprintf("%s, %d cores, %d GiB, %s, %s", m.CPU, m.Cores, m.MemoryGiB, m.OS, m.Go)
}
