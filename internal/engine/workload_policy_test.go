package engine

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

func validPolicy() WorkloadPolicySpec {
	return WorkloadPolicySpec{
		Project: testProject, Region: testRegion, Name: "slice-policy", Description: "dynamic slicing",
		Type: "HIGH_THROUGHPUT", AcceleratorTopology: "4x4x4", AcceleratorTopologyMode: "PROVISION_ONLY",
	}
}

func TestCheckWorkloadPolicy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		change  func(*WorkloadPolicySpec)
		wantErr string // "" for valid
	}{
		{"high throughput, provision only", func(*WorkloadPolicySpec) {}, ""},
		{"high throughput, auto connect", func(s *WorkloadPolicySpec) { s.AcceleratorTopologyMode = "AUTO_CONNECT" }, ""},
		{"auto connect without topology", func(s *WorkloadPolicySpec) {
			s.AcceleratorTopology, s.AcceleratorTopologyMode = "", "AUTO_CONNECT"
		}, ""},
		{"high availability", func(s *WorkloadPolicySpec) {
			s.Type, s.AcceleratorTopology, s.AcceleratorTopologyMode = "HIGH_AVAILABILITY", "", ""
		}, ""},
		{"one letter name", func(s *WorkloadPolicySpec) { s.Name = "a" }, ""},
		{"63 character name", func(s *WorkloadPolicySpec) { s.Name = "a" + strings.Repeat("b", 62) }, ""},
		{"empty name", func(s *WorkloadPolicySpec) { s.Name = "" }, `name "" must be 1-63 lower-case letters`},
		{"64 character name", func(s *WorkloadPolicySpec) { s.Name = "a" + strings.Repeat("b", 63) }, "must be 1-63"},
		{"upper case", func(s *WorkloadPolicySpec) { s.Name = "Slice" }, `name "Slice"`},
		{"leading digit", func(s *WorkloadPolicySpec) { s.Name = "1slice" }, "start with a letter"},
		{"trailing hyphen", func(s *WorkloadPolicySpec) { s.Name = "slice-" }, "not end with a hyphen"},
		{"underscore", func(s *WorkloadPolicySpec) { s.Name = "slice_1" }, `name "slice_1"`},
		{"unknown type", func(s *WorkloadPolicySpec) { s.Type = "LOW_LATENCY" }, `type "LOW_LATENCY" must be one of HIGH_THROUGHPUT, HIGH_AVAILABILITY`},
		{"empty type", func(s *WorkloadPolicySpec) { s.Type = "" }, `type "" must be one of`},
		{"unknown mode", func(s *WorkloadPolicySpec) { s.AcceleratorTopologyMode = "SOMETIMES" }, `accelerator_topology_mode "SOMETIMES" must be one of PROVISION_ONLY, AUTO_CONNECT`},
		{"topology with high availability", func(s *WorkloadPolicySpec) {
			s.Type, s.AcceleratorTopologyMode = "HIGH_AVAILABILITY", ""
		}, `accelerator_topology "4x4x4" is only allowed with type HIGH_THROUGHPUT, not HIGH_AVAILABILITY`},
		{"provision only without topology", func(s *WorkloadPolicySpec) { s.AcceleratorTopology = "" }, "PROVISION_ONLY needs an accelerator_topology"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := validPolicy()
			tc.change(&s)
			err := CheckWorkloadPolicy(s)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckWorkloadPolicy(%+v) = %v, want nil", s, err)
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
			project, region, name, err := ParseWorkloadPolicyID(tc.id, tc.defProject, tc.defRegion)
			if tc.wantErr != "" {
				testsupport.WantContains(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("ParseWorkloadPolicyID(%q): %v", tc.id, err)
			}
			if project != tc.project || region != tc.region || name != tc.policy {
				t.Errorf("ParseWorkloadPolicyID(%q) = %q, %q, %q; want %q, %q, %q", tc.id, project, region, name, tc.project, tc.region, tc.policy)
			}
		})
	}
}

func TestRegionOfAndIsZone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		location, region string
		zone             bool
	}{
		{"us-central1-a", "us-central1", true},
		{"europe-west4-b", "europe-west4", true},
		{"northamerica-northeast1-c", "northamerica-northeast1", true},
		{"us-central1-ai1a", "us-central1", true},
		{"us-central1", "us-central1", false},
		{"us-east5", "us-east5", false},
		{"us-central1-1", "us-central1-1", false},
		{"global", "global", false},
		{"", "", false},
	} {
		if got := RegionOf(tc.location); got != tc.region {
			t.Errorf("RegionOf(%q) = %q, want %q", tc.location, got, tc.region)
		}
		if got := IsZone(tc.location); got != tc.zone {
			t.Errorf("IsZone(%q) = %v, want %v", tc.location, got, tc.zone)
		}
	}
}

func TestCreateWorkloadPolicy(t *testing.T) {
	t.Parallel()
	c := newFakeCompute()
	e := newTestEngine(c, newFakeGKE(), nil)
	got, err := e.CreateWorkloadPolicy(t.Context(), validPolicy())
	if err != nil {
		t.Fatalf("CreateWorkloadPolicy: %v", err)
	}
	if len(c.inserted) != 1 {
		t.Fatalf("%d inserts, want 1", len(c.inserted))
	}
	call := c.inserted[0]
	if call.project != testProject || call.region != testRegion {
		t.Errorf("inserted into %s/%s, want %s/%s", call.project, call.region, testProject, testRegion)
	}
	p := call.policy
	if p.GetName() != "slice-policy" || p.GetDescription() != "dynamic slicing" {
		t.Errorf("inserted name, description = %q, %q", p.GetName(), p.GetDescription())
	}
	wp := p.GetWorkloadPolicy()
	if wp.GetType() != "HIGH_THROUGHPUT" || wp.GetAcceleratorTopology() != "4x4x4" || wp.GetAcceleratorTopologyMode() != "PROVISION_ONLY" {
		t.Errorf("inserted workload policy = %v, want HIGH_THROUGHPUT 4x4x4 PROVISION_ONLY", wp)
	}
	if p.GroupPlacementPolicy != nil || p.SnapshotSchedulePolicy != nil || p.InstanceSchedulePolicy != nil || p.Region != nil {
		t.Errorf("inserted policy sets more than a workload policy: %v", p)
	}

	want := &WorkloadPolicy{
		WorkloadPolicySpec: validPolicy(),
		ID:                 "4242424242",
		SelfLink:           "https://www.googleapis.com/compute/v1/projects/proj/regions/us-central1/resourcePolicies/slice-policy",
	}
	if *got != *want {
		t.Errorf("CreateWorkloadPolicy returned\n%+v\nwant\n%+v", *got, *want)
	}
}

func TestCreateWorkloadPolicyLeavesUnsetFieldsOut(t *testing.T) {
	t.Parallel()
	c := newFakeCompute()
	e := newTestEngine(c, newFakeGKE(), nil)
	s := WorkloadPolicySpec{Project: testProject, Region: testRegion, Name: "ha", Type: "HIGH_AVAILABILITY"}
	got, err := e.CreateWorkloadPolicy(t.Context(), s)
	if err != nil {
		t.Fatalf("CreateWorkloadPolicy: %v", err)
	}
	p := c.inserted[0].policy
	if p.Description != nil || p.WorkloadPolicy.AcceleratorTopology != nil || p.WorkloadPolicy.AcceleratorTopologyMode != nil {
		t.Errorf("inserted %v: unset description, topology and mode must be absent, not empty strings", p)
	}
	if got.Type != "HIGH_AVAILABILITY" || got.AcceleratorTopology != "" || got.Description != "" {
		t.Errorf("read back %+v", got)
	}
}

func TestCreateWorkloadPolicyErrors(t *testing.T) {
	t.Parallel()
	t.Run("invalid spec is not sent", func(t *testing.T) {
		t.Parallel()
		c := newFakeCompute()
		s := validPolicy()
		s.Type = "HIGH_AVAILABILITY"
		_, err := newTestEngine(c, newFakeGKE(), nil).CreateWorkloadPolicy(t.Context(), s)
		testsupport.WantContains(t, err, "only allowed with type HIGH_THROUGHPUT")
		if len(c.inserted) != 0 {
			t.Errorf("an invalid policy was inserted: %v", c.inserted)
		}
	})
	t.Run("insert fails with the API's message", func(t *testing.T) {
		t.Parallel()
		c := newFakeCompute()
		c.insertErr = &googleapi.Error{Code: http.StatusConflict, Message: "The resource 'slice-policy' already exists", Body: "{...raw body...}"}
		_, err := newTestEngine(c, newFakeGKE(), nil).CreateWorkloadPolicy(t.Context(), validPolicy())
		testsupport.WantContains(t, err, "creating workload policy projects/proj/regions/us-central1/resourcePolicies/slice-policy: The resource 'slice-policy' already exists")
		if strings.Contains(err.Error(), "raw body") || strings.Contains(err.Error(), "googleapi:") {
			t.Errorf("error %q carries the client's wrapping, want the API's message only", err)
		}
	})
	t.Run("a 409 to a retried insert adopts the policy its first attempt made", func(t *testing.T) {
		t.Parallel()
		c := newFakeCompute()
		e := newTestEngine(c, newFakeGKE(), nil)
		if _, err := e.CreateWorkloadPolicy(t.Context(), validPolicy()); err != nil {
			t.Fatal(err)
		}
		c.insertErr = &RetriedCreateError{Attempts: 2, Err: &googleapi.Error{Code: http.StatusConflict, Message: "already exists"}}
		got, err := e.CreateWorkloadPolicy(t.Context(), validPolicy())
		if err != nil {
			t.Fatalf("CreateWorkloadPolicy after a lost answer: %v", err)
		}
		if got.Name != "slice-policy" || got.SelfLink == "" {
			t.Errorf("adopted %+v", got)
		}
	})
	t.Run("a 409 to a retried insert does not adopt a different policy", func(t *testing.T) {
		t.Parallel()
		c := newFakeCompute()
		e := newTestEngine(c, newFakeGKE(), nil)
		other := validPolicy()
		other.AcceleratorTopologyMode = ""
		other.AcceleratorTopology = ""
		if _, err := e.CreateWorkloadPolicy(t.Context(), other); err != nil {
			t.Fatal(err)
		}
		c.insertErr = &RetriedCreateError{Attempts: 2, Err: &googleapi.Error{Code: http.StatusConflict, Message: "already exists"}}
		_, err := e.CreateWorkloadPolicy(t.Context(), validPolicy())
		testsupport.WantContains(t, err, "a retried insert found a policy of that name that is not the one asked for", "it was not adopted")
	})
	t.Run("insert fails with a plain error", func(t *testing.T) {
		t.Parallel()
		c := newFakeCompute()
		c.insertErr = errors.New("operation failed: QUOTA 'RESOURCE_POLICIES' exceeded")
		_, err := newTestEngine(c, newFakeGKE(), nil).CreateWorkloadPolicy(t.Context(), validPolicy())
		testsupport.WantContains(t, err, "creating workload policy", "QUOTA 'RESOURCE_POLICIES' exceeded")
	})
}

func TestReadWorkloadPolicy(t *testing.T) {
	t.Parallel()
	c := newFakeCompute()
	e := newTestEngine(c, newFakeGKE(), nil)
	if _, err := e.CreateWorkloadPolicy(t.Context(), validPolicy()); err != nil {
		t.Fatal(err)
	}
	got, err := e.ReadWorkloadPolicy(t.Context(), testProject, testRegion, "slice-policy")
	if err != nil {
		t.Fatalf("ReadWorkloadPolicy: %v", err)
	}
	if got.Name != "slice-policy" || got.Project != testProject || got.Region != testRegion || got.AcceleratorTopologyMode != "PROVISION_ONLY" {
		t.Errorf("ReadWorkloadPolicy = %+v", got)
	}

	_, err = e.ReadWorkloadPolicy(t.Context(), testProject, testRegion, "missing")
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("reading a missing policy: err = %v, want ErrNotFound", err)
	}

	// A 404 wrapped by gax (as the Compute REST client returns it).
	wrapped, _ := apierror.FromError(&googleapi.Error{Code: http.StatusNotFound, Message: "gone"})
	c.getPolicyErr = wrapped
	if _, err := e.ReadWorkloadPolicy(t.Context(), testProject, testRegion, "slice-policy"); !errors.Is(err, ErrNotFound) {
		t.Errorf("reading with a gax-wrapped 404: err = %v, want ErrNotFound", err)
	}

	c.getPolicyErr = &googleapi.Error{Code: http.StatusForbidden, Message: "Required 'compute.resourcePolicies.get' permission"}
	_, err = e.ReadWorkloadPolicy(t.Context(), testProject, testRegion, "slice-policy")
	testsupport.WantContains(t, err, "reading workload policy projects/proj/regions/us-central1/resourcePolicies/slice-policy: Required 'compute.resourcePolicies.get' permission")
	if errors.Is(err, ErrNotFound) {
		t.Errorf("a 403 reads as ErrNotFound: %v", err)
	}
}

func TestReadWorkloadPolicyWithoutWorkloadPolicyBlock(t *testing.T) {
	t.Parallel()
	c := newFakeCompute()
	c.policies["proj/us-central1/placement"] = &computepb.ResourcePolicy{
		Name:                 proto.String("placement"),
		GroupPlacementPolicy: &computepb.ResourcePolicyGroupPlacementPolicy{Collocation: proto.String("COLLOCATED")},
	}
	got, err := newTestEngine(c, newFakeGKE(), nil).ReadWorkloadPolicy(t.Context(), testProject, testRegion, "placement")
	if err != nil {
		t.Fatalf("ReadWorkloadPolicy: %v", err)
	}
	if got.Type != "" || got.Name != "placement" || got.ID != "0" {
		t.Errorf("ReadWorkloadPolicy of a group placement policy = %+v, want no type", got)
	}
}

func TestDeleteWorkloadPolicy(t *testing.T) {
	t.Parallel()
	c := newFakeCompute()
	e := newTestEngine(c, newFakeGKE(), nil)
	if _, err := e.CreateWorkloadPolicy(t.Context(), validPolicy()); err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteWorkloadPolicy(t.Context(), testProject, testRegion, "slice-policy"); err != nil {
		t.Fatalf("DeleteWorkloadPolicy: %v", err)
	}
	if _, err := e.ReadWorkloadPolicy(t.Context(), testProject, testRegion, "slice-policy"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after delete, read err = %v, want ErrNotFound", err)
	}
	if err := e.DeleteWorkloadPolicy(t.Context(), testProject, testRegion, "slice-policy"); err != nil {
		t.Errorf("deleting a policy already gone: %v, want nil", err)
	}
	if want := []string{"proj/us-central1/slice-policy", "proj/us-central1/slice-policy"}; strings.Join(c.deleted, " ") != strings.Join(want, " ") {
		t.Errorf("deletes = %v, want %v", c.deleted, want)
	}

	c.deletePolicyErr = &googleapi.Error{Code: http.StatusBadRequest, Message: "The resource_policy resource 'slice-policy' is already being used by 'node-1'"}
	err := e.DeleteWorkloadPolicy(t.Context(), testProject, testRegion, "slice-policy")
	testsupport.WantContains(t, err, "deleting workload policy projects/proj/regions/us-central1/resourcePolicies/slice-policy: The resource_policy resource 'slice-policy' is already being used by 'node-1'")
}

func TestAPIErrorHelpers(t *testing.T) {
	t.Parallel()
	unwrapped, _ := apierror.ParseError(&googleapi.Error{Code: http.StatusNotFound, Message: "no such block"}, false)
	for _, tc := range []struct {
		name     string
		err      error
		notFound bool
		message  string
	}{
		{"googleapi 404", &googleapi.Error{Code: 404, Message: "missing"}, true, "missing"},
		{"googleapi 404 without message", &googleapi.Error{Code: 404}, true, "googleapi: got HTTP response code 404 with body: "},
		{"gax 404 with status only", unwrapped, true, "no such block"},
		{"wrapped googleapi 409", errors.Join(errors.New("ctx"), &googleapi.Error{Code: 409, Message: "exists"}), false, "exists"},
		{"plain", errors.New("boom"), false, "boom"},
		{"nil", nil, false, ""},
	} {
		if got := kernel.IsNotFound(tc.err); got != tc.notFound {
			t.Errorf("%s: isNotFound = %v, want %v", tc.name, got, tc.notFound)
		}
		if tc.err == nil {
			continue
		}
		if got := kernel.APIMessage(tc.err); got != tc.message {
			t.Errorf("%s: apiMessage = %q, want %q", tc.name, got, tc.message)
		}
	}
}
