package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cliEnviron is the test's environment with the sandbox's CLIEnv, without
// any CLOUDSDK_ setting of the caller's, and with a HOME of its own, so
// that gcloud reads nothing of the user's.
func cliEnviron(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "CLOUDSDK_") && !strings.HasPrefix(e, "HOME=") && !strings.HasPrefix(e, "KUBECONFIG=") {
			env = append(env, e)
		}
	}
	return append(append(env, "HOME="+t.TempDir()), testSandbox.CLIEnv()...)
}

// cli.env holds what CLIEnv says, and its token file the sandbox token,
// both readable by their owner only.
func TestCLIEnvFile(t *testing.T) {
	needSandbox(t)
	if _, err := testSandbox.WriteInfo(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(testSandbox.Dir, "cli.env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range testSandbox.CLIEnv() {
		k, v, _ := strings.Cut(e, "=")
		if line := "export " + k + `="` + v + `"`; !strings.Contains(string(b), line+"\n") {
			t.Errorf("cli.env lacks %s", line)
		}
	}
	for _, name := range []string{"cli.env", "access-token"} {
		st, err := os.Stat(filepath.Join(testSandbox.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v; want 0600", name, st.Mode().Perm())
		}
	}
	token, err := os.ReadFile(filepath.Join(testSandbox.Dir, "access-token"))
	if err != nil || string(token) != testSandbox.Token {
		t.Errorf("access-token holds %d bytes (%v), not the sandbox token", len(token), err)
	}
}

// gcloud, pointed at the sandbox by CLIEnv alone, runs the seed's read
// commands that the sandbox used to fail: sub-blocks of a block (an
// escaped parent), an aggregated reservations list, and a cluster
// describe (currentNodeVersion).
func TestGcloudThroughCLIEnv(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("gcloud"); err != nil {
		t.Skip("gcloud is not installed")
	}
	if _, err := testSandbox.WriteInfo(); err != nil {
		t.Fatal(err)
	}
	inv := testSandbox.Inventory
	gcloud := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(testContext(t), "gcloud", args...)
		cmd.Env = cliEnviron(t)
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("gcloud %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
		}
		return strings.TrimSpace(string(out))
	}
	if got := gcloud("compute", "reservations", "sub-blocks", "list", "tpu7x-reservation", "--block-name=block-a",
		"--zone="+inv.Zone, "--format=value(name)"); got != "sub-block-a1\nsub-block-a2\nsub-block-a3\nsub-block-a4" {
		t.Errorf("sub-blocks list printed %q", got)
	}
	if got := gcloud("compute", "reservations", "list", "--format=value(name)"); got != "tpu7x-reservation\ntpu7x-reservation-2" {
		t.Errorf("reservations list printed %q", got)
	}
	if got := gcloud("container", "clusters", "describe", inv.Cluster, "--location="+inv.Region, "--format=value(currentNodeVersion)"); got == "" {
		t.Error("clusters describe printed no currentNodeVersion")
	}
}
