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
	t.Parallel()
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

// RPC times are summed from the spans given, on no clock.
func TestRPCTimesFromSpans(t *testing.T) {
	t.Parallel()
	srv := &timedServer{}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	srv.addSpan("A", at(0), at(30))
	srv.addSpan("A", at(40), at(50))
	srv.addSpan("B", at(45), at(50))
	times, spans := srv.rpcTimes()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3", len(spans))
	}
	if a, want := times["A"], (RPCTime{Calls: 2, TotalMs: 40, MaxMs: 30}); a != want {
		t.Errorf("A timed as %+v, want %+v", a, want)
	}
	if b, want := times["B"], (RPCTime{Calls: 1, TotalMs: 5, MaxMs: 5}); b != want {
		t.Errorf("B timed as %+v, want %+v", b, want)
	}
	if again, spans := srv.rpcTimes(); len(again) != 0 || len(spans) != 0 {
		t.Error("rpcTimes did not start afresh")
	}
}

func TestLookupIn(t *testing.T) {
	t.Parallel()
	get := lookupIn([]string{"A=1", "TF_LOG_SDK=", "B=x=y"})
	for k, want := range map[string]string{"A": "1", "B": "x=y", "TF_LOG_SDK": "", "C": ""} {
		if got := get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}
