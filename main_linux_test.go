package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// exitBound is how long the provider may take to exit after its Terraform
// is killed: it looks at its parent every second, so this is generous.
const exitBound = 15 * time.Second

// A provider whose Terraform is killed (kill -9, so Terraform cannot stop
// it) exits by itself. Before, it ran on, its requests still open: one
// was found 37 minutes later, still watching the cluster's nodes.
func TestProviderExitsWhenTerraformIsKilled(t *testing.T) {
	tf, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatalf("this test runs the terraform CLI: %v", err)
	}
	silent, connected := silentEndpoint(t)
	dir := t.TempDir()
	env := append(os.Environ(), "TF_CLI_CONFIG_FILE="+providerMirror(t), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	writeFile(t, filepath.Join(dir, "main.tf"), blockedPlanConfig(silent))
	initCmd := exec.Command(tf, "init", "-input=false", "-no-color")
	initCmd.Dir, initCmd.Env = dir, env
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("terraform init: %v\n%s", err, out)
	}

	var out bytes.Buffer
	plan := exec.Command(tf, "plan", "-input=false", "-no-color")
	plan.Dir, plan.Env, plan.Stdout, plan.Stderr = dir, env, &out, &out
	if err := plan.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plan.Process.Kill(); _ = plan.Wait() })
	// The plan is under way once the provider's read reached the endpoint.
	waitFor(t, 60*time.Second, "the provider's request to reach the endpoint", func() bool { return connected.Load() > 0 })
	provider := providerChild(t, plan.Process.Pid)
	t.Cleanup(func() { _ = syscall.Kill(provider, syscall.SIGKILL) })

	// While its Terraform lives, the provider stays, whatever it waits for.
	time.Sleep(2500 * time.Millisecond)
	if !running(provider) {
		t.Fatalf("the provider (pid %d) exited while terraform was running:\n%s", provider, out.String())
	}

	if err := plan.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = plan.Wait()
	killed := time.Now()
	waitFor(t, exitBound, fmt.Sprintf("the provider (pid %d) to exit after terraform was killed", provider),
		func() bool { return !running(provider) })
	t.Logf("the provider exited %s after terraform was killed", time.Since(killed).Round(10*time.Millisecond))
}

// In debug mode the provider is started by hand and outlives the shell
// that started it, on purpose: it does not exit when its parent is gone.
func TestDebugProviderOutlivesItsParent(t *testing.T) {
	rc := providerMirror(t)
	bin := filepath.Join(filepath.Dir(rc), "registry.terraform.io", "dynslice", "gke", "0.0.1", runtime.GOOS+"_"+runtime.GOARCH, "terraform-provider-gke_v0.0.1")
	log := filepath.Join(t.TempDir(), "debug.log")
	// The shell starts the provider, prints its PID, and exits 2 s later,
	// well after the provider began watching its parent.
	shell := exec.Command("sh", "-c", `"$0" -debug > "$1" 2>&1 & echo $!; sleep 2`, bin, log)
	out, err := shell.Output()
	if err != nil {
		t.Fatalf("starting the provider in debug mode: %v", err)
	}
	provider, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("the shell printed %q, not a PID", out)
	}
	t.Cleanup(func() { _ = syscall.Kill(provider, syscall.SIGKILL) })
	// Three intervals of the watch after its parent is gone.
	time.Sleep(3 * time.Second)
	if _, ppid, _, _ := procStat(provider); ppid == shell.Process.Pid {
		t.Fatalf("the provider's parent is still the shell (pid %d): the test did not orphan it", ppid)
	}
	printed, _ := os.ReadFile(log)
	if !running(provider) || !strings.Contains(string(printed), "TF_REATTACH_PROVIDERS") {
		t.Errorf("the provider in debug mode (pid %d) exited when its parent did, or did not serve; it printed:\n%s", provider, printed)
	}
}

// silentEndpoint is an HTTP endpoint that takes connections and never
// answers, counting them: a plan that reads from it blocks.
func silentEndpoint(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var connected atomic.Int32
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			connected.Add(1)
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return "http://" + l.Addr().String() + "/", &connected
}

// blockedPlanConfig is a configuration whose plan reads a data source from
// endpoint, waiting up to 10 minutes for its answer.
func blockedPlanConfig(endpoint string) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    gke = { source = "dynslice/gke" }
  }
}

provider "gke" {
  project            = "p"
  location           = "us-central1"
  cluster            = "c"
  access_token       = "token"
  compute_endpoint   = %[1]q
  container_endpoint = %[1]q
  request_timeout    = "10m"
}

data "gke_reservation_sub_blocks" "a" {
  zone              = "us-central1-a"
  reservation       = "r"
  reservation_block = "b"
}
`, endpoint)
}

// providerMirror builds the provider into a filesystem mirror and returns
// a CLI configuration that installs it from there, with no network.
func providerMirror(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	const version = "0.0.1"
	plugin := filepath.Join(dir, "registry.terraform.io", "dynslice", "gke", version, runtime.GOOS+"_"+runtime.GOARCH)
	if out, err := exec.Command("go", "build", "-o", filepath.Join(plugin, "terraform-provider-gke_v"+version), ".").CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	rc := filepath.Join(dir, "cli.tfrc")
	writeFile(t, rc, fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = ["registry.terraform.io/dynslice/gke"]
  }
  direct {
    exclude = ["registry.terraform.io/dynslice/gke"]
  }
}
`, dir))
	return rc
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// providerChild is the PID of the provider process that terraform (pid
// parent) started.
func providerChild(t *testing.T, parent int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, ppid, _, ok := procStat(pid)
		// The kernel keeps 15 characters of a process's name.
		if ok && ppid == parent && strings.HasPrefix("terraform-provider-gke_v0.0.1", comm) {
			return pid
		}
	}
	t.Fatalf("no provider process is a child of terraform (pid %d)", parent)
	return 0
}

// running says whether pid is a process that has not exited (a zombie,
// waiting for its new parent to reap it, has exited).
func running(pid int) bool {
	_, _, state, ok := procStat(pid)
	return ok && state != "Z" && state != "X"
}

// procStat reads a process's name, parent PID and state from
// /proc/<pid>/stat.
func procStat(pid int) (comm string, ppid int, state string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, "", false
	}
	s := string(b)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return "", 0, "", false
	}
	fields := strings.Fields(s[closing+1:])
	if len(fields) < 2 {
		return "", 0, "", false
	}
	ppid, err = strconv.Atoi(fields[1])
	return s[open+1 : closing], ppid, fields[0], err == nil
}

func waitFor(t *testing.T, within time.Duration, what string, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
