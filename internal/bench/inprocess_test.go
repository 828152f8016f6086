package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The provider binary starts as Terraform starts it and serves its schema.
func TestStartProvider(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "terraform-provider-gke")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run, err := startProvider(context.Background(), bin)
	if err != nil {
		t.Fatal(err)
	}
	if run.Start <= 0 || run.Schema <= 0 || run.SchemaBytes < 1000 {
		t.Errorf("start %s, schema %s, %d bytes of schema", run.Start, run.Schema, run.SchemaBytes)
	}
	if _, err := startProvider(context.Background(), "/bin/true"); err == nil {
		t.Error("a program that is not a provider started")
	}
}

// Terraform reaches the provider served in-process, and its RPCs are timed.
func TestInProcessProvider(t *testing.T) {
	reattach, srv, stop, err := inProcess(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dir := t.TempDir()
	config := `terraform {
  required_providers {
    gke = { source = "dynslice/gke" }
  }
}

output "partitions" {
  value = provider::gke::topology_partitions("16x24x24")
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(cleanEnv(), "TF_REATTACH_PROVIDERS="+reattach, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	for _, args := range [][]string{{"init", "-input=false", "-no-color"}, {"apply", "-input=false", "-no-color", "-auto-approve"}} {
		cmd := exec.Command("terraform", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "apply" && !strings.Contains(string(out), "partitions = 144") {
			t.Errorf("apply output lacks partitions = 144:\n%s", out)
		}
	}
	times, spans := srv.rpcTimes()
	if calls := times["CallFunction"]; calls.Calls == 0 || calls.TotalMs <= 0 {
		t.Errorf("CallFunction timed as %+v", calls)
	}
	if len(spans) == 0 {
		t.Error("no spans recorded")
	}
	if again, spans := srv.rpcTimes(); len(again) != 0 || len(spans) != 0 {
		t.Error("rpcTimes did not start afresh")
	}
}

func TestRPCTimesFromSpans(t *testing.T) {
	srv := &timedServer{}
	now := time.Now()
	srv.clock("A", now.Add(-30*time.Millisecond))
	srv.clock("A", now.Add(-10*time.Millisecond))
	srv.clock("B", now.Add(-5*time.Millisecond))
	times, spans := srv.rpcTimes()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3", len(spans))
	}
	a := times["A"]
	if a.Calls != 2 || a.MaxMs < 30 || a.TotalMs < 40 || a.TotalMs < a.MaxMs {
		t.Errorf("A timed as %+v, want 2 calls, the slowest at least 30 ms, at least 40 ms in all", a)
	}
	if b := times["B"]; b.Calls != 1 || b.MaxMs != b.TotalMs {
		t.Errorf("B timed as %+v, want one call whose total is its slowest", b)
	}
	if again, spans := srv.rpcTimes(); len(again) != 0 || len(spans) != 0 {
		t.Error("rpcTimes did not start afresh")
	}
}

func TestLookupIn(t *testing.T) {
	get := lookupIn([]string{"A=1", "TF_LOG_SDK=", "B=x=y"})
	for k, want := range map[string]string{"A": "1", "B": "x=y", "TF_LOG_SDK": "", "C": ""} {
		if got := get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}
