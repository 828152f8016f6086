package bench

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestMergeKueue(t *testing.T) {
	t.Parallel()
	amd := Machine{CPU: "AMD EPYC", Cores: 2, MemoryGiB: 24, OS: "linux/amd64", Go: "go1.26.8"}
	r := &Report{Date: "2026-11-25T01:08:22Z", Command: "make bench", Settings: Settings{Runs: 5}, Machine: amd,
		Kueue:   KueueOnDemand{Runs: 5, Workload: "old", Pods: 64, SubmitToAdmittedMs: 9000},
		Targets: []TargetResult{{Name: "Kubernetes node LISTs per plan", Met: true}}}
	if err := r.MergeKueue(&Report{}, ""); !errors.Is(err, ErrNoKueue) {
		t.Fatalf("a run without a Kueue step: %v, want ErrNoKueue", err)
	}
	flex := &KueueFlex{Runs: 3, Workload: "flex JobSet", Pods: 2, ProvisionDelayMs: 2000, SubmitToProvisionedMs: 2500,
		SubmitToAdmittedMs: 2700, SubmitToBoundMs: 3100, SubmitToBoundMaxMs: 3300}
	intel := amd
	intel.CPU = "Intel(R) Xeon(R) Processor"
	run := &Report{Date: "2026-11-28T03:30:00Z", Command: "make bench-kueue", Settings: Settings{Runs: 3}, Machine: intel,
		Kueue: KueueOnDemand{Runs: 3, Workload: "JobSet of 2 Jobs, each on a 4x4x8 slice", Pods: 64,
			SubmitToAdmittedMs: 1300, SubmitToBoundMs: 3300, SubmitToBoundMaxMs: 3600, CompleteToGoneMs: 500, Flex: flex}}
	if err := r.MergeKueue(run, "load average 6.1 on 2 cores"); err != nil {
		t.Fatal(err)
	}
	flex.SubmitToBoundMs = 1 // the merged figures are a copy
	k := r.Kueue
	if k.Runs != 3 || k.SubmitToAdmittedMs != 1300 || k.Flex == nil || k.Flex.SubmitToBoundMs != 3100 || k.Run == nil ||
		k.Run.Date != run.Date || k.Run.Command != "make bench-kueue" || k.Run.Runs != 3 || k.Run.Machine != intel {
		t.Errorf("merged Kueue step: %+v, flex %+v, run %+v", k, k.Flex, k.Run)
	}
	if r.Date != "2026-11-25T01:08:22Z" || r.Command != "make bench" || r.Settings.Runs != 5 || len(r.Targets) != 1 || r.Machine != amd {
		t.Errorf("the rest of the report changed: date %s, command %s, runs %d, targets %v", r.Date, r.Command, r.Settings.Runs, r.Targets)
	}
	var md bytes.Buffer
	r.writeKueue(func(format string, args ...any) { _, _ = fmt.Fprintf(&md, format, args...) })
	for _, want := range []string{
		"Measured on 2026-11-28 by `make bench-kueue`, in a run of its own on Intel(R) Xeon(R) Processor, 2 cores, 24 GiB, linux/amd64, go1.26.8 (load average 6.1 on 2 cores).",
		"| JobSet of 2 Jobs, each on a 4x4x8 slice | 3 | 1.30 s |",
		"| flex JobSet | 3 | 2.50 s | 2.70 s | 3.10 s (slowest 3.30 s) |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("page lacks %q:\n%s", want, md.String())
		}
	}
}

func TestMergeKueueSameMachine(t *testing.T) {
	t.Parallel()
	m := Machine{CPU: "AMD EPYC", Cores: 2}
	r := &Report{Machine: m}
	if err := r.MergeKueue(&Report{Date: "2026-11-28T03:30:00Z", Command: "make bench-kueue", Machine: m, Kueue: KueueOnDemand{Runs: 1}}, ""); err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	r.writeKueueRun(func(format string, args ...any) { _, _ = fmt.Fprintf(&md, format, args...) })
	if want := " Measured on 2026-11-28 by `make bench-kueue`, in a run of its own on the same machine."; md.String() != want {
		t.Errorf("got %q, want %q", md.String(), want)
	}
}
