package bench

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestMergeScale(t *testing.T) {
	t.Parallel()
	kube := map[string]int64{"watchlist nodes": 1}
	r := &Report{Date: "2026-01-02T00:00:00Z", Settings: Settings{Runs: 5}, Machine: Machine{CPU: "AMD EPYC", Cores: 2, MemoryGiB: 24, OS: "linux/amd64", Go: "go1.26.8"},
		Scale: &Scaling{Points: []ScalePoint{point(1, 1000, 5, 3, kube)}}}
	r.Targets = append([]TargetResult{{Name: "Kubernetes node LISTs per plan", Met: true}}, scaleTargets(r.Scale)...)
	if err := r.MergeScale(&Report{}, ""); !errors.Is(err, ErrNoScale) {
		t.Fatalf("a run without a scale step: %v, want ErrNoScale", err)
	}
	run := &Report{Date: "2026-11-27T23:31:00Z", Command: "gke-bench -steps scale", Settings: Settings{Runs: 3, Pods: []int{1, 4}},
		Machine: Machine{CPU: "Intel(R) Xeon(R) Processor", Cores: 2, MemoryGiB: 24, OS: "linux/amd64", Go: "go1.26.8"},
		Scale:   &Scaling{Points: []ScalePoint{point(1, 1000, 5, 1.2, kube), point(4, 1000, 5, 1.2, kube)}}}
	run.Scale.PerPool = perPool(run.Scale.Points)
	if err := r.MergeScale(run, "load 30 on 2 cores"); err != nil {
		t.Fatal(err)
	}
	if len(r.Scale.Points) != 2 || r.Scale.Run == nil || r.Scale.Run.Runs != 3 || fmt.Sprint(r.Settings.Pods) != "[1 4]" || r.Date != "2026-01-02T00:00:00Z" {
		t.Errorf("merged: points %d, run %+v, pods %v, date %s", len(r.Scale.Points), r.Scale.Run, r.Settings.Pods, r.Date)
	}
	names := map[string]int{}
	for _, tr := range r.Targets {
		names[tr.Name]++
		if tr.Name == "Plan against its schema floor as the fleet grows" && !tr.Met {
			t.Errorf("the floor target kept the old run's figures: %s", tr.Measured)
		}
	}
	if len(r.Targets) != 5 || names["Kubernetes node LISTs per plan"] != 1 || names["Requests per plan as the fleet grows"] != 1 {
		t.Errorf("targets after the merge: %v", names)
	}
	var md bytes.Buffer
	r.writeScale(func(format string, args ...any) { _, _ = fmt.Fprintf(&md, format, args...) })
	for _, want := range []string{"Medians of 3 runs. Measured on 2026-11-27 by `gke-bench -steps scale`, in a run of its own on Intel(R) Xeon(R) Processor, 2 cores", "(load 30 on 2 cores)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("page lacks %q:\n%s", want, md.String())
		}
	}
}
