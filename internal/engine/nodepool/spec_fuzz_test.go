package nodepool

import (
	"strings"
	"testing"
)

// A node pool ID as a user imports it: no value panics the parser, and what
// it accepts is canonical once (its canonical form is its own canonical
// form, with four parts none of which is empty or holds a slash).
func FuzzCanonicalID(f *testing.F) {
	for _, seed := range []string{
		"projects/p/locations/us-central1/clusters/c/nodePools/np",
		"https://container.googleapis.com/v1/projects/p/locations/l/clusters/c/nodePools/np",
		"projects/p/locations/l/clusters/c", "", "projects//locations//clusters//nodePools/", "np",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, id string) {
		canonical, err := CanonicalID(id)
		if err != nil {
			if !strings.Contains(err.Error(), "projects/P/locations/L/clusters/C/nodePools/N") {
				t.Fatalf("CanonicalID(%q) error %q does not say the form", id, err)
			}
			return
		}
		again, err := CanonicalID(canonical)
		if err != nil || again != canonical {
			t.Fatalf("CanonicalID(%q) = %q, whose canonical form is %q (%v)", id, canonical, again, err)
		}
		project, location, cluster, name, err := parseNodePoolID(canonical)
		for _, part := range []string{project, location, cluster, name} {
			if err != nil || part == "" || strings.Contains(part, "/") {
				t.Fatalf("parseNodePoolID(%q) = %q %q %q %q, %v", canonical, project, location, cluster, name, err)
			}
		}
	})
}
