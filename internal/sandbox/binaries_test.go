package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pinnedInToolsSandbox is the version of module that tools/sandbox/go.mod
// requires: the module `make sandbox-bin` builds the sandbox's parts from.
func pinnedInToolsSandbox(t *testing.T, module string) string {
	t.Helper()
	root, ok := repoRoot()
	if !ok {
		t.Fatal("not in the repository")
	}
	b, err := os.ReadFile(filepath.Join(root, "tools", "sandbox", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(module) + ` (v\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("tools/sandbox/go.mod does not require %s", module)
	}
	return string(m[1])
}

// A missing binary is named, with how to get it.
func TestFindBuiltBinaryMissing(t *testing.T) {
	t.Setenv("GKE_SANDBOX_NO_SUCH_PART", "")
	_, err := findBuiltBinary("no-such-part", "", "GKE_SANDBOX_NO_SUCH_PART")
	if err == nil || !strings.Contains(err.Error(), "make sandbox-bin") || !strings.Contains(err.Error(), "bin/no-such-part") ||
		!strings.Contains(err.Error(), "GKE_SANDBOX_NO_SUCH_PART") {
		t.Errorf("error %v; want it to name bin/no-such-part, make sandbox-bin and GKE_SANDBOX_NO_SUCH_PART", err)
	}
	if got, err := findBuiltBinary("kwok", "/bin/sh", "GKE_SANDBOX_KWOK"); err != nil || got != "/bin/sh" {
		t.Errorf("the option: %q, %v; want /bin/sh", got, err)
	}
}
