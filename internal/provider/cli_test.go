package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/tfrun"
)

// The provider as a user installs it: built once per test binary into a
// local filesystem mirror (tfrun.Build, the release flags), which
// terraform init uses with no network.
var (
	mirrorOnce sync.Once
	mirrorRC   string
	mirrorErr  error
	// mirrorDir is made by TestMain and removed when the tests end.
	mirrorDir string
)

func providerMirror(t *testing.T) string {
	t.Helper()
	mirrorOnce.Do(func() {
		if _, mirrorErr = tfrun.Build(context.Background(), filepath.Join("..", ".."), mirrorDir, "gke", "."); mirrorErr != nil {
			return
		}
		mirrorRC = filepath.Join(mirrorDir, "cli.tfrc")
		mirrorErr = tfrun.WriteCLIConfig(mirrorRC, mirrorDir, "gke")
	})
	if mirrorErr != nil {
		t.Fatal(mirrorErr)
	}
	return mirrorRC
}

// terraformCLI runs the terraform CLI in dir against the sandbox, with the
// provider from the mirror.
type terraformCLI struct {
	t   *testing.T
	dir string
	env []string
}

func newTerraformCLI(t *testing.T, dir string) *terraformCLI {
	t.Helper()
	needTarget(t)
	// Against an external target the provider's environment is already
	// this process's.
	env := os.Environ()
	if accSandbox != nil {
		env = append(env, accSandbox.Env()...)
	}
	env = append(env, "TF_CLI_CONFIG_FILE="+providerMirror(t), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	return &terraformCLI{t: t, dir: dir, env: env}
}

// requiredProviders is the terraform block of a configuration that uses
// the provider from the mirror.
const requiredProviders = `terraform {
  required_providers {
    gke = { source = "dynslice/gke" }
  }
}
`

// cliWorkspace is a new directory whose main.tf is the required_providers
// block, providerConfig and config (written with the default inventory's
// names, which it maps to the target's), initialized. When the test ends
// the sandbox's faults are cleared and everything is destroyed.
func cliWorkspace(t *testing.T, providerConfig, config string) *terraformCLI {
	t.Helper()
	dir := t.TempDir()
	cli := newTerraformCLI(t, dir)
	cli.write(providerConfig + accTarget.translate(config))
	return initWorkspace(t, dir)
}

// initWorkspace runs terraform init in dir, which holds a configuration,
// and destroys what it made when the test ends.
func initWorkspace(t *testing.T, dir string) *terraformCLI {
	t.Helper()
	return initWorkspaceOf(t, newTerraformCLI(t, dir))
}

// initWorkspaceOf runs terraform init with cli, whose directory holds a
// configuration, and destroys what it made when the test ends.
func initWorkspaceOf(t *testing.T, cli *terraformCLI) *terraformCLI {
	t.Helper()
	cli.must("init", "-input=false", "-no-color")
	t.Cleanup(func() {
		if accSandbox != nil {
			accSandbox.SetFaults(sandbox.Faults{})
		}
		left := cli.stateResources()
		if out, err := cli.run("destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
			t.Errorf("cleanup destroy: %v\n%s", err, out)
			return
		}
		// What the state held is gone from the target, as a CheckDestroy
		// of terraform-plugin-testing checks.
		if err := checkAllDestroyed(t)(left); err != nil {
			t.Errorf("after the cleanup destroy: %v", err)
		}
	})
	return cli
}

// stateResources is the workspace's state (all modules), as the
// CheckDestroy functions read it: each resource's type, ID and top-level
// string attributes.
func (c *terraformCLI) stateResources() *terraform.State {
	c.t.Helper()
	root := &terraform.ModuleState{Path: []string{"root"}, Resources: map[string]*terraform.ResourceState{}}
	st := &terraform.State{Modules: []*terraform.ModuleState{root}}
	out, err := c.run("show", "-json", "-no-color")
	if err != nil {
		c.t.Errorf("terraform show -json: %v\n%s", err, out)
		return st
	}
	type module struct {
		Resources []struct {
			Address string         `json:"address"`
			Mode    string         `json:"mode"`
			Type    string         `json:"type"`
			Values  map[string]any `json:"values"`
		} `json:"resources"`
		ChildModules []json.RawMessage `json:"child_modules"`
	}
	var shown struct {
		Values *struct {
			RootModule json.RawMessage `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		c.t.Errorf("terraform show -json: %v", err)
		return st
	}
	if shown.Values == nil {
		return st // no state
	}
	var add func(raw json.RawMessage)
	add = func(raw json.RawMessage) {
		var m module
		if err := json.Unmarshal(raw, &m); err != nil {
			c.t.Errorf("terraform show -json: %v", err)
			return
		}
		for _, r := range m.Resources {
			if r.Mode != "managed" {
				continue
			}
			attrs := map[string]string{}
			for k, v := range r.Values {
				if s, ok := v.(string); ok {
					attrs[k] = s
				}
			}
			root.Resources[r.Address] = &terraform.ResourceState{Type: r.Type, Primary: &terraform.InstanceState{ID: attrs["id"], Attributes: attrs}}
		}
		for _, child := range m.ChildModules {
			add(child)
		}
	}
	add(shown.Values.RootModule)
	return st
}

// write replaces main.tf with the required_providers block and config.
func (c *terraformCLI) write(config string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(requiredProviders+config), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// runningTerraform is a terraform command started by startUntil: its
// process, its output so far, and its exit.
type runningTerraform struct {
	cmd  *exec.Cmd
	out  *bytes.Buffer
	done chan error
}

// startUntil starts terraform with args and returns once ready says so.
// The test fails if terraform ends before that, or ready does not come
// within 60 s; what is done to the running command (what) is named in the
// failure.
func (c *terraformCLI) startUntil(ready func() bool, what string, args ...string) runningTerraform {
	c.t.Helper()
	cmd := c.workspace().Command(context.Background(), args...)
	out := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Should the wait fail, terraform is killed as the test ends.
	reached := false
	c.t.Cleanup(func() {
		if !reached {
			_ = cmd.Process.Kill()
		}
	})
	testsupport.Poll(c.t, 60*time.Second, 20*time.Millisecond, fmt.Sprintf("terraform %s to reach the point to be %s", args[0], what), func() (bool, string, error) {
		select {
		case err := <-done:
			c.t.Fatalf("terraform %s ended (%v) before it could be %s:\n%s", args[0], err, what, out.String())
		default:
		}
		if ready() {
			return true, "", nil
		}
		return false, fmt.Sprintf("terraform %s never reached the point to be %s:\n%s", args[0], what, out.String()), nil
	})
	reached = true
	return runningTerraform{cmd: cmd, out: out, done: done}
}

// interruptWhen runs terraform with args, sends it SIGINT (Ctrl-C) once
// ready says so, and returns its output (how long it took to exit after
// the signal is logged, never asserted). The test fails if terraform ends before, or runs on
// 30 s after the signal.
func (c *terraformCLI) interruptWhen(ready func() bool, args ...string) string {
	c.t.Helper()
	r := c.startUntil(ready, "interrupted", args...)
	interrupted := time.Now()
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		c.t.Fatal(err)
	}
	// No bound of its own: a terraform that does not stop fails the test
	// when the binary's -timeout is near, and what the test asserts of the
	// interrupt is counted, not timed.
	end, stop := testsupport.NearTimeout(c.t)
	defer stop()
	select {
	case err := <-r.done:
		took := time.Since(interrupted)
		c.t.Logf("terraform %s exited %s after SIGINT: %v", args[0], took.Round(10*time.Millisecond), err)
		return r.out.String()
	case <-end:
		_ = r.cmd.Process.Kill()
		c.t.Fatalf("terraform %s still ran after SIGINT when the test binary's -timeout was near:\n%s", args[0], r.out.String())
	}
	return ""
}

// workspace is the runner of c's commands (tfrun), which logs each.
func (c *terraformCLI) workspace() tfrun.Workspace {
	return tfrun.Workspace{Dir: c.dir, Env: c.env, Log: c.t.Logf}
}

// run runs terraform with args and returns its output; its error wraps
// the command's *exec.ExitError.
func (c *terraformCLI) run(args ...string) (string, error) {
	res, err := c.workspace().Run(context.Background(), nil, args...)
	return res.Output, err
}

func (c *terraformCLI) must(args ...string) string {
	c.t.Helper()
	out, err := c.run(args...)
	if err != nil {
		c.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// copyTree copies a directory of examples into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == ".terraform" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !strings.HasSuffix(p, ".tf") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// emptyPlan fails the test unless a plan has nothing to change.
func (c *terraformCLI) emptyPlan(when string) {
	c.t.Helper()
	if out, err := c.run("plan", "-input=false", "-detailed-exitcode", "-no-color"); err != nil {
		c.t.Fatalf("plan %s is not empty (%v):\n%s", when, err, out)
	}
}
