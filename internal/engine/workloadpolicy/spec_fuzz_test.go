package workloadpolicy

import (
	"strings"
	"testing"
)

// A workload policy's ID or reference as a user writes it: no value panics
// the parser, and what it accepts has three parts, none empty or holding a
// slash, which read back the same.
func FuzzParseID(f *testing.F) {
	for _, seed := range []string{
		"projects/p/regions/us-central1/resourcePolicies/wp",
		"https://www.googleapis.com/compute/v1/projects/p/regions/r/resourcePolicies/wp",
		"wp", "", "WP", "projects/p/regions/r", "/projects/p/regions/r/resourcePolicies/wp", "a-very-long-name-" + strings.Repeat("x", 70),
	} {
		f.Add(seed, "p", "us-central1")
	}
	f.Fuzz(func(t *testing.T, id, project, region string) {
		p, r, n, err := ParseID(id, project, region)
		if err != nil {
			if !strings.Contains(err.Error(), "projects/P/regions/R/resourcePolicies/N") {
				t.Fatalf("ParseID(%q) error %q does not say the form", id, err)
			}
			return
		}
		if n == "" || strings.Contains(n, "/") {
			t.Fatalf("ParseID(%q) = %q %q %q: the name is empty or holds a slash", id, p, r, n)
		}
		path := "projects/" + p + "/regions/" + r + "/resourcePolicies/" + n
		p2, r2, n2, err := ParseID(path, "", "")
		if strings.Contains(p, "/") || strings.Contains(r, "/") || p == "" || r == "" {
			return // a default project or region the caller gave; not the parser's
		}
		if err != nil || p2 != p || r2 != r || n2 != n {
			t.Fatalf("ParseID(%q) = %q %q %q, which reads back as %q %q %q (%v)", id, p, r, n, p2, r2, n2, err)
		}
	})
}
