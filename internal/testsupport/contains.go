package testsupport

import (
	"strings"
	"testing"
)

// WantContains fails the test unless err's text has every part: at once
// when there is no error, otherwise with a failure for each part missing.
func WantContains(t testing.TB, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}
