package provider

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// olderKueueCRDs writes into a new directory the sandbox's Kueue CRDs
// with version v1beta2 removed and v1beta1 stored: the API of a Kueue
// older than v0.15.
func olderKueueCRDs(t *testing.T) string {
	t.Helper()
	src, err := sandbox.KueueCRDDir(sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(src, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("Kueue CRDs in %s: %v", src, err)
	}
	dir := t.TempDir()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd unstructured.Unstructured
		if err := utilyaml.Unmarshal(b, &crd.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		var kept []any
		for _, v := range versions {
			m, _ := v.(map[string]any)
			if m["name"] == "v1beta1" {
				m["storage"], m["served"] = true, true
				kept = append(kept, m)
			}
		}
		if len(kept) == 0 {
			continue // a resource new in v1beta2: not served at all
		}
		if err := unstructured.SetNestedSlice(crd.Object, kept, "spec", "versions"); err != nil {
			t.Fatal(err)
		}
		unstructured.RemoveNestedField(crd.Object, "spec", "conversion")
		out, err := yaml.Marshal(crd.Object)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), out, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "VERSION"), []byte("v1beta1 only (test)\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A cluster whose Kueue serves only v1beta1 (older than v0.15) fails the
// plan, saying what is served, what is needed and what to do. It runs on
// a sandbox of its own, without the workload parts, whose Kueue CRDs are
// the pinned release's without v1beta2.
func TestAccKueueSlicing_olderKueue(t *testing.T) {
	needSandboxControl(t, "a second sandbox of its own, whose Kueue serves v1beta1 only")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Options{NoWorkloads: true, KueueCRDs: olderKueueCRDs(t)})
	if err != nil {
		t.Fatalf("a sandbox with Kueue v1beta1 only: %v", err)
	}
	t.Cleanup(sb.Stop)
	// Before the sandbox stops: the provider's watches of it end first.
	t.Cleanup(closeTestClients)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []tfresource.TestStep{{
			Config: sb.ProviderConfig() + `
resource "gke_kueue_slicing" "k" {
  name       = "acc-old"
  node_pools = ["made-later"]
  namespaces = ["default"]
}
`,
			PlanOnly: true,
			ExpectError: wrapped("Kueue v0.15 or Later Not Installed",
				"The cluster serves kueue.x-k8s.io only in version(s) v1beta1, not v1beta2: its Kueue is older than v0.15",
				"needs kueue.x-k8s.io/v1beta2 serving topologies, resourceflavors, admissionchecks, clusterqueues, localqueues, workloads",
				"Upgrade Kueue to v0.15 or later"),
		}},
	})
}
