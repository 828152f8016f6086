package sandbox

import (
	"strings"
	"testing"
)

// A missing binary is named, with how to get it.
func TestFindBuiltBinaryMissing(t *testing.T) {
	t.Setenv("GKE_SANDBOX_NO_SUCH_PART", "")
	_, err := findBuiltBinary("no-such-part", "", "GKE_SANDBOX_NO_SUCH_PART", "tools/kwok")
	if err == nil || !strings.Contains(err.Error(), "make sandbox-bin") || !strings.Contains(err.Error(), "bin/no-such-part") ||
		!strings.Contains(err.Error(), "GKE_SANDBOX_NO_SUCH_PART") {
		t.Errorf("error %v; want it to name bin/no-such-part, make sandbox-bin and GKE_SANDBOX_NO_SUCH_PART", err)
	}
	if got, err := findBuiltBinary("kwok", "/bin/sh", "GKE_SANDBOX_KWOK", "tools/kwok"); err != nil || got != "/bin/sh" {
		t.Errorf("the option: %q, %v; want /bin/sh", got, err)
	}
}
