package bench

import "errors"

// ErrNoKueue says that a run has no Kueue step to merge.
var ErrNoKueue = errors.New("the run has no Kueue step (gke-bench -steps kueue)")

// MergeKueue puts the Kueue step of run (a gke-bench -steps kueue run):
// the reservation's slices on demand and the flex-start flavor beside
// them, into r in place of r's own, with where it was measured and note
// (what the run's author said of the conditions: the machine's load). r's
// other figures, its date and its targets stay as they were (no target
// reads the Kueue step).
func (r *Report) MergeKueue(run *Report, note string) error {
	if run.Kueue.Runs == 0 {
		return ErrNoKueue
	}
	k := run.Kueue
	if k.Flex != nil {
		flex := *k.Flex
		k.Flex = &flex
	}
	k.Run = &ScaleRun{Date: run.Date, Command: run.Command, Runs: k.Runs, Note: note}
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
	w(" Measured on %s by `%s`, in a run of its own on the same machine", dateOf(run.Date), run.Command)
	if run.Note != "" {
		w(" (%s)", run.Note)
	}
	w(".")
}
