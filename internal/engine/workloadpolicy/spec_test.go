package workloadpolicy

import (
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

const (
	testProject = "proj"
	testRegion  = "us-central1"
)

func validPolicy() Spec {
	return Spec{
		Project: testProject, Region: testRegion, Name: "slice-policy", Description: "dynamic slicing",
		Type: "HIGH_THROUGHPUT", AcceleratorTopology: "4x4x4", AcceleratorTopologyMode: "PROVISION_ONLY",
	}
}

func TestCheckWorkloadPolicy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		change  func(*Spec)
		wantErr string // "" for valid
	}{
		{"high throughput, provision only", func(*Spec) {}, ""},
		{"high throughput, auto connect", func(s *Spec) { s.AcceleratorTopologyMode = "AUTO_CONNECT" }, ""},
		{"auto connect without topology", func(s *Spec) {
			s.AcceleratorTopology, s.AcceleratorTopologyMode = "", "AUTO_CONNECT"
		}, ""},
		{"high availability", func(s *Spec) {
			s.Type, s.AcceleratorTopology, s.AcceleratorTopologyMode = "HIGH_AVAILABILITY", "", ""
		}, ""},
		{"one letter name", func(s *Spec) { s.Name = "a" }, ""},
		{"63 character name", func(s *Spec) { s.Name = "a" + strings.Repeat("b", 62) }, ""},
		{"empty name", func(s *Spec) { s.Name = "" }, `name "" must be 1-63 lower-case letters`},
		{"64 character name", func(s *Spec) { s.Name = "a" + strings.Repeat("b", 63) }, "must be 1-63"},
		{"upper case", func(s *Spec) { s.Name = "Slice" }, `name "Slice"`},
		{"leading digit", func(s *Spec) { s.Name = "1slice" }, "start with a letter"},
		{"trailing hyphen", func(s *Spec) { s.Name = "slice-" }, "not end with a hyphen"},
		{"underscore", func(s *Spec) { s.Name = "slice_1" }, `name "slice_1"`},
		{"unknown type", func(s *Spec) { s.Type = "LOW_LATENCY" }, `type "LOW_LATENCY" must be one of HIGH_THROUGHPUT, HIGH_AVAILABILITY`},
		{"empty type", func(s *Spec) { s.Type = "" }, `type "" must be one of`},
		{"unknown mode", func(s *Spec) { s.AcceleratorTopologyMode = "SOMETIMES" }, `accelerator_topology_mode "SOMETIMES" must be one of PROVISION_ONLY, AUTO_CONNECT`},
		{"topology with high availability", func(s *Spec) {
			s.Type, s.AcceleratorTopologyMode = "HIGH_AVAILABILITY", ""
		}, `accelerator_topology "4x4x4" is only allowed with type HIGH_THROUGHPUT, not HIGH_AVAILABILITY`},
		{"provision only without topology", func(s *Spec) { s.AcceleratorTopology = "" }, "PROVISION_ONLY needs an accelerator_topology"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := validPolicy()
			tc.change(&s)
			err := Check(s)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Check(%+v) = %v, want nil", s, err)
				}
				return
			}
			testsupport.WantContains(t, err, tc.wantErr)
		})
	}
}

func TestWorkloadPolicySpecPath(t *testing.T) {
	t.Parallel()
	if got, want := validPolicy().Path(), "projects/proj/regions/us-central1/resourcePolicies/slice-policy"; got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}
}

func TestParseWorkloadPolicyID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, id, defProject, defRegion string
		project, region, policy         string
		wantErr                         string
	}{
		{name: "self link", id: "https://www.googleapis.com/compute/v1/projects/p1/regions/europe-west4/resourcePolicies/wp",
			project: "p1", region: "europe-west4", policy: "wp"},
		{name: "beta self link", id: "https://compute.googleapis.com/compute/beta/projects/p1/regions/us-east5/resourcePolicies/wp-2",
			project: "p1", region: "us-east5", policy: "wp-2"},
		{name: "path", id: "projects/p2/regions/us-central1/resourcePolicies/slices", defProject: "other", defRegion: "other",
			project: "p2", region: "us-central1", policy: "slices"},
		{name: "bare name with defaults", id: "slices", defProject: "dp", defRegion: "us-central1",
			project: "dp", region: "us-central1", policy: "slices"},
		{name: "bare name without project", id: "slices", defRegion: "us-central1",
			wantErr: `"slices" is a bare name, but the provider has no default project and region`},
		{name: "bare name without region", id: "slices", defProject: "dp",
			wantErr: "use projects/P/regions/R/resourcePolicies/N"},
		{name: "zonal path", id: "projects/p/zones/us-central1-a/resourcePolicies/wp", defProject: "dp", defRegion: "r",
			wantErr: `"projects/p/zones/us-central1-a/resourcePolicies/wp" is not a workload policy`},
		{name: "trailing slash", id: "projects/p/regions/r/resourcePolicies/wp/", defProject: "dp", defRegion: "r",
			wantErr: "is not a workload policy"},
		{name: "upper case name", id: "Slices", defProject: "dp", defRegion: "r", wantErr: "is not a workload policy"},
		{name: "empty", id: "", defProject: "dp", defRegion: "r", wantErr: "is not a workload policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			project, region, name, err := ParseID(tc.id, tc.defProject, tc.defRegion)
			if tc.wantErr != "" {
				testsupport.WantContains(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("ParseID(%q): %v", tc.id, err)
			}
			if project != tc.project || region != tc.region || name != tc.policy {
				t.Errorf("ParseID(%q) = %q, %q, %q; want %q, %q, %q", tc.id, project, region, name, tc.project, tc.region, tc.policy)
			}
		})
	}
}

// The documented defaults of dynamic slicing, and its 4x4x4 rule.
func TestWorkloadPolicyDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want Spec }{
		{Spec{}, Spec{Type: "HIGH_THROUGHPUT", AcceleratorTopology: "4x4x4", AcceleratorTopologyMode: "PROVISION_ONLY"}},
		{Spec{Type: "HIGH_AVAILABILITY"}, Spec{Type: "HIGH_AVAILABILITY"}},
		{Spec{AcceleratorTopologyMode: "AUTO_CONNECT"}, Spec{Type: "HIGH_THROUGHPUT", AcceleratorTopology: "4x4x4", AcceleratorTopologyMode: "AUTO_CONNECT"}},
		{Spec{AcceleratorTopology: "4x4x8"}, Spec{Type: "HIGH_THROUGHPUT", AcceleratorTopology: "4x4x8", AcceleratorTopologyMode: "PROVISION_ONLY"}},
	} {
		if got := tc.in.WithDefaults(); got != tc.want {
			t.Errorf("%+v.WithDefaults() = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if err := CheckDynamicSlicing(Spec{AcceleratorTopology: "4x4x8"}.WithDefaults()); err == nil || !strings.Contains(err.Error(), `use "4x4x4"`) {
		t.Errorf("4x4x8 with PROVISION_ONLY: %v, want the 4x4x4 rule", err)
	}
	if err := CheckDynamicSlicing(Spec{}.WithDefaults()); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	if err := CheckDynamicSlicing(Spec{AcceleratorTopology: "4x4x8", AcceleratorTopologyMode: "AUTO_CONNECT"}); err != nil {
		t.Errorf("4x4x8 with AUTO_CONNECT: %v", err)
	}
}
