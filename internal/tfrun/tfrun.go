// Package tfrun runs the real terraform CLI against this repository's
// provider, for the acceptance tests' CLI harness (internal/provider's
// cli_test.go) and the benchmarks (internal/bench): it builds a provider
// into a local filesystem mirror that terraform init installs from with no
// network, serves a provider in this process for Terraform to reattach to
// (TF_REATTACH_PROVIDERS, as Terraform's debug mode does), and runs
// terraform commands in a working directory, timing and logging each.
package tfrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// Version is the version a provider built into a mirror is installed as.
const Version = "0.0.1"

// Address is this provider's registry address, the one configurations'
// required_providers name (source "dynslice/gke").
const Address = "registry.terraform.io/dynslice/gke"

// Build builds the provider of package pkg, in the module at root, with
// the release build flags (CGO_ENABLED=0, -trimpath, -ldflags "-s -w", as
// .goreleaser.yml) into mirror as registry.terraform.io/dynslice/<name>,
// and returns the binary's path.
func Build(ctx context.Context, root, mirror, name, pkg string) (string, error) {
	dir := filepath.Join(mirror, "registry.terraform.io", "dynslice", name, Version, runtime.GOOS+"_"+runtime.GOARCH)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	binary := filepath.Join(dir, "terraform-provider-"+name+"_v"+Version)
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+Version, "-o", binary, pkg)
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the provider %s (go build %s in %s): %v\n%s", name, pkg, root, err, out)
	}
	return binary, nil
}

// WriteCLIConfig writes the Terraform CLI configuration file path
// (TF_CLI_CONFIG_FILE) that installs the providers dynslice/<name> of
// names from mirror, and never from the network.
func WriteCLIConfig(path, mirror string, names ...string) error {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = fmt.Sprintf("%q", "registry.terraform.io/dynslice/"+n)
	}
	list := "[" + strings.Join(quoted, ", ") + "]"
	rc := fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = %s\n  }\n  direct {\n    exclude = %s\n  }\n}\n", mirror, list, list)
	return os.WriteFile(path, []byte(rc), 0o600)
}

// CleanEnv is this process's environment without Terraform's logging and
// configuration variables (TF_LOG*, TF_CLI_CONFIG_FILE, TF_CLI_ARGS*,
// TF_REATTACH_PROVIDERS, TF_PLUGIN_CACHE_DIR), which would change what
// Terraform does.
func CleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TF_LOG") || strings.HasPrefix(name, "TF_CLI_ARGS") || name == "TF_CLI_CONFIG_FILE" ||
			name == "TF_REATTACH_PROVIDERS" || name == "TF_PLUGIN_CACHE_DIR" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Serve serves the provider server from this process, as Terraform's
// debug mode does, at address, and returns the TF_REATTACH_PROVIDERS=...
// entry of the environment of a Terraform that is to use it, and stop,
// which ends the serving and waits (at most 10 s) for it to end. It fails
// when the server gives no address within a minute.
func Serve(ctx context.Context, address string, server func() tfprotov6.ProviderServer) (env string, stop func(), err error) {
	ctx, cancel := context.WithCancel(ctx)
	configs := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- tf6server.Serve(address, server, tf6server.WithDebug(ctx, configs, closed),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()), tf6server.WithoutLogStderrOverride())
	}()
	stop = func() {
		cancel()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
		}
	}
	var cfg *plugin.ReattachConfig
	select {
	case cfg = <-configs:
	case err := <-served:
		cancel()
		return "", nil, fmt.Errorf("serving the provider %s in process: %v", address, err)
	case <-time.After(time.Minute):
		stop()
		return "", nil, fmt.Errorf("serving the provider %s in process: no reattach address within a minute", address)
	}
	// The form of TF_REATTACH_PROVIDERS that Terraform reads.
	type addr struct{ Network, String string }
	entry := struct {
		Protocol        string
		ProtocolVersion int
		Pid             int
		Test            bool
		Addr            addr
	}{string(cfg.Protocol), cfg.ProtocolVersion, cfg.Pid, true, addr{cfg.Addr.Network(), cfg.Addr.String()}}
	b, err := json.Marshal(map[string]any{address: entry})
	if err != nil {
		stop()
		return "", nil, err
	}
	return "TF_REATTACH_PROVIDERS=" + string(b), stop, nil
}

// Workspace is a Terraform working directory and the environment its
// commands run with.
type Workspace struct {
	Dir string
	Env []string
	// Log, when set, is told of each command as it ends: its arguments,
	// wall and CPU time, and its error.
	Log func(format string, args ...any)
}

// Result is what a command printed (stdout and stderr, interleaved) and
// how long it took: wall time, and the CPU time (user and system) of
// Terraform's process and of the provider processes it started and
// waited for, which the kernel adds to Terraform's when it reaps them.
type Result struct {
	Output    string
	Wall, CPU time.Duration
}

// Command is the terraform command with args in the workspace, its output
// not yet connected.
func (w Workspace) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "terraform", args...)
	cmd.Dir, cmd.Env = w.Dir, w.Env
	return cmd
}

// Run runs terraform with args in the workspace. When started is set, it
// is called with the process once it has started and returns what to call
// once it has ended (to watch the process meanwhile). A command that
// fails returns an error that names it and wraps its *exec.ExitError.
func (w Workspace) Run(ctx context.Context, started func(*os.Process) func(), args ...string) (Result, error) {
	cmd := w.Command(ctx, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	err := cmd.Start()
	if err == nil {
		ended := func() {}
		if started != nil {
			ended = started(cmd.Process)
		}
		err = cmd.Wait()
		ended()
	}
	r := Result{Output: out.String(), Wall: time.Since(began)}
	if cmd.ProcessState != nil {
		r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if w.Log != nil {
		w.Log("terraform %s (%s, CPU %s): %v", strings.Join(args, " "), r.Wall.Round(time.Millisecond), r.CPU.Round(time.Millisecond), errOrOK(err))
	}
	if err != nil {
		return r, fmt.Errorf("terraform %s in %s: %w", strings.Join(args, " "), w.Dir, err)
	}
	return r, nil
}

func errOrOK(err error) any {
	if err == nil {
		return "ok"
	}
	return err
}

// LastLines is the last n lines of s, for an error message.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
