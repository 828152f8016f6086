package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// The command starts the sandbox, reports where its description is, and
// on SIGINT or SIGTERM stops every process it started and exits 0.
func TestCommandStartsAndStopsCleanly(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("needs kube-apiserver and etcd (make sandbox-bin): set TF_ACC=1, as `make test` does")
	}
	bin := filepath.Join(t.TempDir(), "gke-sandbox")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "-quiet", "-dir", filepath.Join(dir, "sb"))
			cmd.Stderr = os.Stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil {
				t.Fatalf("reading the ready line: %v", err)
			}
			raw, err := os.ReadFile(strings.TrimSpace(line))
			if err != nil {
				t.Fatal(err)
			}
			var info sandbox.Info
			if err := json.Unmarshal(raw, &info); err != nil {
				t.Fatal(err)
			}
			// etcd, kube-apiserver and the JobSet controller, at least.
			if len(info.PIDs) < 3 || info.JobSetVersion == "" || info.GoogleURL == "" || info.KubeHost == "" || info.Token == "" {
				t.Fatalf("sandbox.json is incomplete: %+v", info)
			}
			for _, pid := range info.PIDs {
				if err := syscall.Kill(pid, 0); err != nil {
					t.Fatalf("process %d is not running: %v", pid, err)
				}
			}
			if out, err := exec.Command("kubectl", "--kubeconfig", info.Kubeconfig, "get", "crd", "slices.accelerator.gke.io", "-o", "name").CombinedOutput(); err != nil {
				t.Fatalf("kubectl with the sandbox kubeconfig: %v\n%s", err, out)
			}

			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Fatalf("after %v the command exited with %v", sig, err)
			}
			for _, pid := range info.PIDs {
				// A stopped child is reaped by the command; a survivor
				// would still answer signal 0.
				if err := syscall.Kill(pid, 0); err == nil {
					t.Errorf("process %d is still running after %v", pid, sig)
				}
			}
		})
	}
}
