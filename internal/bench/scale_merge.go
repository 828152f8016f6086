package bench

import (
	"errors"
	"slices"
)

// ScaleRun says where the figures of a scale step were measured when they
// come from a run of their own (gke-bench -steps scale), put into the
// figures of another run by MergeScale; empty when the run that made the
// rest of the figures also made these.
type ScaleRun struct {
	Date    string `json:"date,omitempty"`
	Command string `json:"command,omitempty"`
	Runs    int    `json:"runs,omitempty"`
	// Machine is the run's machine (empty in runs merged before it was
	// recorded).
	Machine Machine `json:"machine"`
	// Note is what the run's author said of the conditions (how loaded
	// the machine was), as given to gke-bench -scale-note.
	Note string `json:"note,omitempty"`
}

// ErrNoScale says that a run has no scale step to merge.
var ErrNoScale = errors.New("the run has no scale step (gke-bench -steps scale -pods ...)")

// MergeScale puts the scale step of run (a gke-bench -steps scale run)
// into r in place of r's own, with where it was measured and note, and
// recomputes the scale step's targets; r's other figures and targets stay
// as they were.
func (r *Report) MergeScale(run *Report, note string) error {
	if run.Scale == nil || len(run.Scale.Points) == 0 {
		return ErrNoScale
	}
	old := map[string]bool{}
	for _, t := range scaleTargets(r.Scale) {
		old[t.Name] = true
	}
	sc := *run.Scale
	sc.Run = &ScaleRun{Date: run.Date, Command: run.Command, Runs: run.Settings.Runs, Machine: run.Machine, Note: note}
	r.Scale = &sc
	r.Settings.Pods = slices.Clone(run.Settings.Pods)
	fresh := scaleTargets(r.Scale)
	for _, t := range fresh {
		old[t.Name] = true
	}
	r.Targets = slices.DeleteFunc(r.Targets, func(t TargetResult) bool { return old[t.Name] })
	r.Targets = append(r.Targets, fresh...)
	return nil
}

// scaleRuns is how many runs the scale step's medians are of.
func (r *Report) scaleRuns() int {
	if r.Scale != nil && r.Scale.Run != nil && r.Scale.Run.Runs > 0 {
		return r.Scale.Run.Runs
	}
	return r.Settings.Runs
}
