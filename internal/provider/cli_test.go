package provider

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The provider as a user installs it: built once per test binary into a
// local filesystem mirror, which terraform init uses with no network.
var (
	mirrorOnce sync.Once
	mirrorRC   string
	mirrorErr  error
	// mirrorDir is made by TestMain and removed when the tests end.
	mirrorDir string
)

const mirrorVersion = "0.0.1"

func providerMirror(t *testing.T) string {
	t.Helper()
	mirrorOnce.Do(func() {
		dir := mirrorDir
		plugin := filepath.Join(dir, "registry.terraform.io", "dynslice", "gke", mirrorVersion, runtime.GOOS+"_"+runtime.GOARCH)
		if err := os.MkdirAll(plugin, 0o755); err != nil {
			mirrorErr = err
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(plugin, "terraform-provider-gke_v"+mirrorVersion), "../..").CombinedOutput()
		if err != nil {
			mirrorErr = errors.New("building the provider: " + err.Error() + "\n" + string(out))
			return
		}
		mirrorRC = filepath.Join(dir, "cli.tfrc")
		mirrorErr = os.WriteFile(mirrorRC, []byte(`provider_installation {
  filesystem_mirror {
    path    = "`+dir+`"
    include = ["registry.terraform.io/dynslice/gke"]
  }
  direct {
    exclude = ["registry.terraform.io/dynslice/gke"]
  }
}
`), 0o600)
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
	needSandbox(t)
	env := append(os.Environ(), accSandbox.Env()...)
	env = append(env, "TF_CLI_CONFIG_FILE="+providerMirror(t), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	return &terraformCLI{t: t, dir: dir, env: env}
}

func (c *terraformCLI) run(args ...string) (string, error) {
	cmd := exec.Command("terraform", args...)
	cmd.Dir, cmd.Env = c.dir, c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
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
